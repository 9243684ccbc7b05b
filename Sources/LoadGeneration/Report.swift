import Foundation

/// Writes one JSON object as a line on stdout, at once: `scripts/loadtest` follows the phases
/// as they come, through a pipe that would otherwise hold them back.
func emit(_ object: [String: Any]) {
    guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
        preconditionFailure("a report line that is not JSON: \(object)")
    }
    data.append(UInt8(ascii: "\n"))
    FileHandle.standardOutput.write(data)
}

/// The value at `fraction` of `sorted`: index round(fraction × (n − 1)), rounding half to even,
/// as Python's `round` and the script's `percentile` do.
func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    precondition(!sorted.isEmpty)
    let position = Int((fraction * Double(sorted.count - 1)).rounded(.toNearestOrEven))
    return sorted[min(sorted.count - 1, position)]
}

/// `{"p50", "p99", "max"}` of `values` in milliseconds; nulls when there are none.
func distribution(_ values: [Double]) -> [String: Any] {
    guard !values.isEmpty else { return ["p50": NSNull(), "p99": NSNull(), "max": NSNull()] }
    let sorted = values.sorted()
    return [
        "p50": rounded(percentile(sorted, 0.5)), "p99": rounded(percentile(sorted, 0.99)), "max": rounded(sorted.last!),
    ]
}

/// Three decimals: microseconds of a millisecond figure, hundredths of a percent of a CPU share.
func rounded(_ value: Double) -> Double {
    (value * 1000).rounded() / 1000
}

/// The `result` line: everything the run counted, put together.
struct RunResult {
    var send: SendOutcome
    var receivers: [ReceiverTally]
    var health: HealthTally
    var attackers: AttackerCounts?
    /// Each thread's share of one core while sending.
    var cpu: CPUShares

    struct CPUShares {
        var sender: Double
        var receivers: [Double]
        var health: Double
        var attackers: Double?
    }

    var line: [String: Any] {
        let sum = { (count: (ReceiverTally) -> Int) in receivers.reduce(0) { $0 + count($1) } }
        let healthTimes = health.samples.compactMap { $0 }
        var healthFigures = distribution(healthTimes)
        healthFigures["count"] = health.samples.count
        healthFigures["failed"] = health.samples.count - healthTimes.count
        let lags = receivers.map { $0.lags.isEmpty ? 0 : percentile($0.lags.sorted(), 0.99) }
        return [
            "event": "result",
            "sent": send.sent,
            "failed": send.failed,
            "first_failure": send.firstFailure ?? NSNull(),
            "send_seconds": rounded(Double(send.finishedAt - send.startedAt) / 1e9),
            "expected": send.expected,
            "delivered": sum { $0.delivered },
            "disorder": sum { $0.counts.disorder },
            "duplicates": sum { $0.counts.duplicates },
            "dropped": sum { $0.counts.dropped },
            "refused": sum { $0.counts.refused },
            "closed": sum { $0.counts.closed },
            "malformed": sum { $0.counts.malformed },
            "latency_ms": distribution(receivers.flatMap { $0.latencies }),
            "edit_latency_ms": distribution(receivers.flatMap { $0.editLatencies }),
            "done": Dictionary(uniqueKeysWithValues: Post.Kind.allCases.map { ($0.name, send.done[$0.rawValue]) }),
            "post_ms": distribution(send.roundTrips),
            "health": healthFigures,
            "attackers": attackers.map { ["unauthenticated": $0.unauthenticated, "slow": $0.slow] } ?? NSNull(),
            "cpu": [
                "sender": rounded(cpu.sender),
                "receivers": cpu.receivers.map(rounded),
                "health": rounded(cpu.health),
                "attackers": cpu.attackers.map(rounded) ?? NSNull(),
            ] as [String: Any],
            "lag_p99_ms": rounded(lags.max() ?? 0),
        ]
    }
}
