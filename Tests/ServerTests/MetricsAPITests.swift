import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server

/// `/api/metrics`: Prometheus's text format for an admin token, a 403 for anyone else; the
/// engines' figures are whatever the process's engines report, the sockets are counted.
@Suite struct MetricsAPITests {
    @Test func aPoolsServersAreListed() async throws {
        let servers = [
            InferenceServerMetrics(url: "http://10.0.0.2:8080/v1", up: true, inFlight: 2, served: 40, failed: 0),
            InferenceServerMetrics(url: "http://10.0.0.3:8080/v1\"x", up: false, inFlight: 0, served: 7, failed: 3),
        ]
        let server = try await TestServer { $0.inferenceServers = { servers } }
        defer { server.server.stop() }
        let text = try await HTTPClient(port: server.port, token: server.token("operator", admin: true))
            .get("/api/metrics").text
        let lines = Set(text.split(separator: "\n").map(String.init))
        for expected in [
            #"sotto_inference_server_up{url="http://10.0.0.2:8080/v1"} 1"#,
            #"sotto_inference_server_up{url="http://10.0.0.3:8080/v1\"x"} 0"#,
            #"sotto_inference_server_requests_in_flight{url="http://10.0.0.2:8080/v1"} 2"#,
            #"sotto_inference_server_requests_total{url="http://10.0.0.2:8080/v1"} 40"#,
            #"sotto_inference_server_failures_total{url="http://10.0.0.3:8080/v1\"x"} 3"#,
        ] {
            #expect(lines.contains(expected), "\(expected) in:\n\(text)")
        }
    }

    @Test func anAdminReadsTheMetricsAndNobodyElseDoes() async throws {
        let engine = EngineMetrics(
            queued: 3, running: 8, lastBatchSize: 8, largestBatchSize: 9, tokensPerSecond: 101.5, steps: 40,
            generatedTokens: 320, forwardSeconds: 2.25)
        let server = try await TestServer { $0.engineMetrics = { [engine] } }
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        let socket = try await server.socket(alice)
        _ = try await socket.receive(until: { $0["type"] as? String == "hello" })  // registered
        let refused = try await server.client(alice).get("/api/metrics")
        #expect(refused.status == 403 && refused.errorCode == "forbidden", "\(refused.text)")

        let admin = HTTPClient(port: server.port, token: server.token("operator", admin: true))
        let answer = try await admin.get("/api/metrics")
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let lines = Set(answer.text.split(separator: "\n").map(String.init))
        for expected in [
            #"sotto_engine_requests_queued{engine="0"} 3"#, #"sotto_engine_requests_running{engine="0"} 8"#,
            #"sotto_engine_batch_size{engine="0"} 8"#, #"sotto_engine_batch_size_max{engine="0"} 9"#,
            #"sotto_engine_tokens_per_second{engine="0"} 101.50"#, #"sotto_engine_steps_total{engine="0"} 40"#,
            #"sotto_engine_generated_tokens_total{engine="0"} 320"#,
            #"sotto_engine_forward_seconds_total{engine="0"} 2.250"#, "sotto_suggestions_queued 0",
            "sotto_suggestions_running 0", "sotto_websockets_open 1", "# TYPE sotto_engine_steps_total counter",
        ] {
            #expect(lines.contains(expected), "\(expected) in:\n\(answer.text)")
        }
        // Every sample has its HELP and TYPE.
        let names = Set(lines.filter { !$0.hasPrefix("#") }.map { String($0.prefix { $0 != "{" && $0 != " " }) })
        for name in names {
            #expect(
                lines.contains { $0.hasPrefix("# HELP \(name) ") } && lines.contains { $0.hasPrefix("# TYPE \(name) ") }
            )
        }
        withExtendedLifetime(socket) {}
    }
}
