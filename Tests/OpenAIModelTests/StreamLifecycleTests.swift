import ChatStore
import Foundation
import FoundationModels
import OpenAIModel
import Server
import TestSupport
import Testing

/// The streamed request's lifecycle: a reader that stops at `[DONE]` while URLSession completes
/// the task must not cancel a task that finished (swift-corelibs-foundation stops the process:
/// `TaskRegistry.swift: Fatal error … not in the registry`). Against `FakeEndpoint`, hundreds of
/// turns in seconds: the crash came within ~100.
@Suite(.serialized) struct StreamLifecycleTests {
    @Test func hundredsOfStreamedTurnsEndCleanly() async throws {
        let endpoint = try FakeEndpoint()
        defer { endpoint.stop() }
        let model = OpenAICompatibleModel(baseURL: URL(string: "http://127.0.0.1:\(endpoint.port)/v1")!, model: "fake")
        let expected = FakeEndpoint.answer.joined()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var answered = 0
                    for _ in 0..<40 {
                        let session = LanguageModelSession(model: model)
                        var last = ""
                        for try await snapshot in session.streamResponse(to: "Say hello") { last = snapshot.content }
                        if last == expected { answered += 1 }
                    }
                    return answered
                }
            }
            var total = 0
            for try await answered in group { total += answered }
            #expect(total == 320)
        }
        #expect(endpoint.requests == 320)
    }

    /// A reader that leaves mid-stream cancels the request (the endpoint sees the hang-up), and
    /// leaving after the end touches nothing.
    @Test func aReaderThatLeavesEarlyCancelsTheRequest() async throws {
        let endpoint = try FakeEndpoint()
        defer { endpoint.stop() }
        endpoint.hold(true)
        let model = OpenAICompatibleModel(baseURL: URL(string: "http://127.0.0.1:\(endpoint.port)/v1")!, model: "fake")
        for _ in 0..<20 {
            let task = Task {
                let session = LanguageModelSession(model: model)
                for try await _ in session.streamResponse(to: "Say hello") {}
            }
            while endpoint.heldStreams == 0 { try await Task.sleep(for: .milliseconds(5)) }
            task.cancel()
            _ = await task.result
            endpoint.release()
        }
        endpoint.hold(false)
        let session = LanguageModelSession(model: model)
        #expect(try await session.respond(to: "Say hello").content == FakeEndpoint.answer.joined())
    }

    /// Errors reach users: they say "the fallback server" (the endpoint's name) and what went
    /// wrong, never its address or the credentials in its URL.
    @Test func errorsNameNeitherTheAddressNorTheCredentials() async throws {
        let closed = try FakeEndpoint()
        let port = closed.port
        closed.stop()
        let endpoint = OpenAICompatibleModel.Endpoint(
            baseURL: URL(string: "http://admin:hunter2@127.0.0.1:\(port)/v1")!, model: "fake", apiKey: "sk-secret",
            timeout: 5, name: "the fallback server")
        #expect(endpoint.displayURL == "http://127.0.0.1:\(port)/v1")
        let session = LanguageModelSession(model: OpenAICompatibleModel(endpoint: endpoint))
        do {
            _ = try await session.respond(to: "hi")
            Issue.record("answered")
        } catch {
            let text = "\(error)"
            #expect(text.contains("the fallback server did not answer"), "\(text)")
            for secret in ["hunter2", "admin", "sk-secret", "127.0.0.1", "\(port)"] {
                #expect(!text.contains(secret), "\(text)")
            }
        }
    }
}
