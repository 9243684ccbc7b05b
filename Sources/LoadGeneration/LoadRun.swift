import Foundation

/// Runs the load the configuration file at `path` describes (`sotto-loadgen`'s whole job).
package func runLoad(configurationPath path: String) throws {
    try LoadRun(plan: LoadPlan(Configuration.load(from: path))).run()
}

/// The phases of a run, driven from the main thread, which otherwise only waits: connect every
/// WebSocket, wait for `go`, start the attackers, send on schedule while the health probe
/// samples, wait out the grace period, report.
struct LoadRun {
    let plan: LoadPlan
    /// Every socket must be connected within this; the server is broken or overloaded otherwise.
    private static let connectSeconds = 60.0
    /// After the last message falls due, answers may lag this long before the run gives up.
    private static let answerSeconds = 60.0

    func run() throws {
        try raiseDescriptorLimit()
        let receivers = try connectReceivers()
        guard let line = readLine(), line.trimmingCharacters(in: .whitespaces) == "go" else {
            throw LoadGeneratorError("expected a line 'go' on stdin")
        }
        let sender = try Sender(plan: plan)
        var attackers: Attackers?
        if plan.attackers {
            let started = try Attackers(address: plan.address)
            started.start()
            attackers = started
            Thread.sleep(forTimeInterval: 3)  // their connections open before the load starts
        }
        emit(["event": "sending"])
        let health = HealthProbe(address: plan.address)
        health.start()
        let before = CPUSnapshot(sender: sender, health: health, receivers: receivers, attackers: attackers)
        for receiver in receivers { receiver.startMeasuringLag() }
        let outcome = try send(with: sender)
        let cpu = CPUSnapshot(sender: sender, health: health, receivers: receivers, attackers: attackers)
            .shares(since: before)
        emit(["event": "sent"])

        let healthTally = health.stop()
        var attackerCounts: AttackerCounts?
        if let attackers {
            let counts = Handoff<AttackerCounts>()
            attackers.stop(reporting: counts)
            attackerCounts = counts.take(within: 10)
        }
        // Deliveries still on their way are waited for, so a slow server shows as latency, not loss.
        Thread.sleep(forTimeInterval: plan.grace)
        let tallies = try receivers.enumerated().map { index, receiver in
            let tally = Handoff<ReceiverTally>()
            receiver.collect(into: tally)
            guard let counts = tally.take(within: 30) else {
                throw LoadGeneratorError("receiver thread \(index) did not hand over its counts")
            }
            return counts
        }
        let result = RunResult(
            send: outcome, receivers: tallies, health: healthTally, attackers: attackerCounts, cpu: cpu)
        emit(result.line)
    }

    /// Sends every message, and waits until each is answered.
    private func send(with sender: Sender) throws -> SendOutcome {
        let finished = Handoff<SendOutcome>()
        sender.start(reporting: finished)
        if let outcome = finished.take(within: Double(plan.seconds) + Self.answerSeconds) { return outcome }
        let progress = Handoff<SendOutcome>()
        sender.progress(into: progress)
        let answered = progress.take(within: 5)?.answered ?? 0
        throw LoadGeneratorError(
            "\(plan.messageCount - answered) of \(plan.messageCount) POSTs still unanswered "
                + "\(Int(Self.answerSeconds)) s after the last fell due")
    }

    /// Connects every user's WebSocket, the users dealt over the receiver threads in turn.
    private func connectReceivers() throws -> [ReceiverLoop] {
        let started = monotonicNanoseconds()
        let threads = min(plan.receiverThreads, plan.users.count)
        let receivers = try (0..<threads).map { index in
            try ReceiverLoop(
                name: "receiver-\(index)", users: Array(stride(from: index, to: plan.users.count, by: threads)),
                plan: plan)
        }
        let outcomes = receivers.map { receiver in
            let outcome = Handoff<ConnectOutcome>()
            receiver.connectAll(reporting: outcome)
            return outcome
        }
        var total = ConnectOutcome()
        for outcome in outcomes {
            let left = Self.connectSeconds - Double(monotonicNanoseconds() - started) / 1e9
            guard let counts = outcome.take(within: max(left, 0)) else {
                total = ConnectOutcome()
                for receiver in receivers {
                    let progress = Handoff<ConnectOutcome>()
                    receiver.connectProgress(into: progress)
                    total.add(progress.take(within: 5) ?? ConnectOutcome())
                }
                throw LoadGeneratorError(
                    "\(total.connected) of \(plan.users.count) sockets connected within \(Int(Self.connectSeconds)) s"
                        + Self.failures(total))
            }
            total.add(counts)
        }
        guard total.connected == plan.users.count else {
            throw LoadGeneratorError(
                "\(total.connected) of \(plan.users.count) sockets connected" + Self.failures(total))
        }
        let seconds = Double(monotonicNanoseconds() - started) / 1e9
        emit(["event": "connected", "sockets": total.connected, "seconds": rounded(seconds)])
        return receivers
    }

    private static func failures(_ outcome: ConnectOutcome) -> String {
        guard outcome.failed > 0 else { return " (the rest still connecting, or waiting for their hello)" }
        return " (\(outcome.refused) upgrades refused, \(outcome.failed - outcome.refused) other failures; "
            + "the first: \(outcome.firstFailure ?? "?"))"
    }

    /// Lifts the soft limit on descriptors to the hard one: a run holds one per user, plus the
    /// sender's and the attackers'.
    private func raiseDescriptorLimit() throws {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let needed =
            plan.users.count + plan.connections
            + (plan.attackers ? Attackers.unauthenticatedCount + Attackers.slowCount : 0) + 64
        guard limit.rlim_max >= rlim_t(needed) else {  // RLIM_INFINITY is the largest value
            throw LoadGeneratorError(
                "this run needs \(needed) file descriptors, over the hard limit of \(limit.rlim_max)")
        }
    }
}

/// Every thread's CPU time at one moment, read from the orchestrating thread (see
/// `ThreadCPUClock`).
private struct CPUSnapshot {
    let wall = monotonicNanoseconds()
    let sender: Int64
    let health: Int64
    let receivers: [Int64]
    let attackers: Int64?

    init(sender: Sender, health: HealthProbe, receivers: [ReceiverLoop], attackers: Attackers?) {
        self.sender = sender.thread.cpuClock.nanoseconds
        self.health = health.cpuClock.nanoseconds
        self.receivers = receivers.map(\.thread.cpuClock.nanoseconds)
        self.attackers = attackers?.thread.cpuClock.nanoseconds
    }

    /// Each thread's share of one core from `earlier` to this moment.
    func shares(since earlier: CPUSnapshot) -> RunResult.CPUShares {
        let wall = Double(self.wall - earlier.wall)
        return RunResult.CPUShares(
            sender: Double(sender - earlier.sender) / wall,
            receivers: zip(receivers, earlier.receivers).map { Double($0 - $1) / wall },
            health: Double(health - earlier.health) / wall,
            attackers: attackers.flatMap { now in earlier.attackers.map { Double(now - $0) / wall } })
    }
}
