import Foundation
import HTTPCore
import ServerKit

/// What a model engine in the server's process is doing, for `/api/metrics` (`sotto serve`
/// fills it from LocalEngine's `EngineScheduling.status`).
public struct EngineMetrics: Sendable, Equatable {
    public var queued: Int
    public var running: Int
    public var lastBatchSize: Int
    public var largestBatchSize: Int
    public var tokensPerSecond: Double
    public var steps: Int
    public var generatedTokens: Int
    public var forwardSeconds: Double

    public init(
        queued: Int, running: Int, lastBatchSize: Int, largestBatchSize: Int, tokensPerSecond: Double, steps: Int,
        generatedTokens: Int, forwardSeconds: Double
    ) {
        self.queued = queued
        self.running = running
        self.lastBatchSize = lastBatchSize
        self.largestBatchSize = largestBatchSize
        self.tokensPerSecond = tokensPerSecond
        self.steps = steps
        self.generatedTokens = generatedTokens
        self.forwardSeconds = forwardSeconds
    }
}

/// One inference server of a pool (`sotto serve --pool-urls`), for `/api/metrics`.
public struct InferenceServerMetrics: Sendable, Equatable {
    /// Its base URL, without credentials.
    public var url: String
    public var up: Bool
    public var inFlight: Int
    public var served: Int
    public var failed: Int

    public init(url: String, up: Bool, inFlight: Int, served: Int, failed: Int) {
        self.url = url
        self.up = up
        self.inFlight = inFlight
        self.served = served
        self.failed = failed
    }
}

/// `GET /api/metrics`: what the server is doing, in Prometheus's text format, for an admin
/// token — requests queued and running in each model engine, its batch and tokens per second,
/// reply suggestions waiting and running, open sockets.
struct MetricsAPI: Sendable {
    let engines: @Sendable () -> [EngineMetrics]
    var inferenceServers: @Sendable () -> [InferenceServerMetrics] = { [] }
    let suggestions: @Sendable () -> (queued: Int, running: Int)
    let sockets: @Sendable () -> Int

    func add(to routes: inout RouteList) {
        routes.add(
            "GET", "/api/metrics",
            APIOperation(
                id: "metrics",
                summary:
                    "What the server is doing, in Prometheus's text format (admin tokens only): each model engine's requests queued and running, last and largest batch, tokens per second, steps and tokens generated; the inference servers of a pool (--pool-urls): up, requests in flight, answered and failed; reply suggestions queued and running; open WebSockets.",
                answers: [.init(200, "The metrics.", ##"{"type": "string"}"##, mediaTypes: ["text/plain"])],
                errors: [403])
        ) { context in
            guard context.claims?.isAdmin == true else {
                throw APIError(
                    status: 403, code: "forbidden", message: "the metrics are for admin tokens (sotto token --admin)")
            }
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                body: Array(text().utf8))
        }
    }

    /// The metrics in Prometheus's text exposition format.
    func text() -> String {
        var lines: [String] = []
        func metric(_ name: String, _ type: String, _ help: String, _ values: [(labels: String, value: String)]) {
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) \(type)")
            for (labels, value) in values { lines.append("\(name)\(labels) \(value)") }
        }
        let engines = engines()
        func perEngine(_ value: (EngineMetrics) -> String) -> [(labels: String, value: String)] {
            engines.enumerated().map { index, engine in ("{engine=\"\(index)\"}", value(engine)) }
        }
        metric("sotto_engine_requests_queued", "gauge", "Requests waiting for a KV slot.", perEngine { "\($0.queued)" })
        metric(
            "sotto_engine_requests_running", "gauge", "Requests on a KV slot (reading their prompt or generating).",
            perEngine { "\($0.running)" })
        metric(
            "sotto_engine_batch_size", "gauge", "Requests in the last forward step.",
            perEngine { "\($0.lastBatchSize)" })
        metric(
            "sotto_engine_batch_size_max", "gauge", "The most requests one forward step has run.",
            perEngine { "\($0.largestBatchSize)" })
        metric(
            "sotto_engine_tokens_per_second", "gauge",
            "Tokens generated per second over the last seconds, all requests.",
            perEngine { String(format: "%.2f", $0.tokensPerSecond) })
        metric(
            "sotto_engine_steps_total", "counter", "Forward steps since the engine started.",
            perEngine { "\($0.steps)" })
        metric(
            "sotto_engine_generated_tokens_total", "counter", "Tokens generated since the engine started.",
            perEngine { "\($0.generatedTokens)" })
        metric(
            "sotto_engine_forward_seconds_total", "counter", "Time in forward passes since the engine started.",
            perEngine { String(format: "%.3f", $0.forwardSeconds) })
        let servers = inferenceServers()
        if !servers.isEmpty {
            func perServer(_ value: (InferenceServerMetrics) -> String) -> [(labels: String, value: String)] {
                servers.map { server in ("{url=\"\(Self.labelValue(server.url))\"}", value(server)) }
            }
            metric(
                "sotto_inference_server_up", "gauge", "Whether a pool's inference server is taking requests.",
                perServer { $0.up ? "1" : "0" })
            metric(
                "sotto_inference_server_requests_in_flight", "gauge", "Requests a pool's server is answering.",
                perServer { "\($0.inFlight)" })
            metric(
                "sotto_inference_server_requests_total", "counter", "Requests a pool's server answered.",
                perServer { "\($0.served)" })
            metric(
                "sotto_inference_server_failures_total", "counter", "Requests that failed on a pool's server.",
                perServer { "\($0.failed)" })
        }
        let load = suggestions()
        metric(
            "sotto_suggestions_queued", "gauge", "Reply suggestions waiting to be generated.", [("", "\(load.queued)")])
        metric("sotto_suggestions_running", "gauge", "Reply suggestions being generated.", [("", "\(load.running)")])
        metric("sotto_websockets_open", "gauge", "Open WebSocket connections.", [("", "\(sockets())")])
        return lines.joined(separator: "\n") + "\n"
    }

    /// A label value as the text format writes it: backslash, quote and newline escaped.
    static func labelValue(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
