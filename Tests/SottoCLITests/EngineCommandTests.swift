import EngineClient
import Foundation
import FoundationModels
import ModelStore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `sotto engine` as an app meets it: the app's `SystemLanguageModel` finds no service, starts
/// this binary in the background, and its requests run there.
@Suite("sotto engine")
struct EngineCommandTests {
    @Test func anAppStartsTheServiceAndItsRequestsRunThere() async throws {
        let file = try RealModels.file(RealModels.smollm)
        let home = try TemporaryHome()
        let linked = home.models.appendingPathComponent("smollm2-135m.gguf")
        if link(file.path, linked.path) != 0 { try FileManager.default.copyItem(at: file.url, to: linked) }
        let binary = try #require(SottoBinary.url, "the sotto binary is not next to the test bundle")
        let client = EngineServiceClient(
            home: home.url, launcher: EngineLauncher(home: home.url, environment: ["SOTTO_BIN": binary.path]))
        let model = SystemLanguageModel(
            model: .id("smollm2-135m"), contextSize: nil,
            backend: SystemModelBackend(locator: StoreModelLocator(store: home.store()), engine: client))
        let socket = home.url.appendingPathComponent("engine.sock")
        #expect(!FileManager.default.fileExists(atPath: socket.path))

        let session = LanguageModelSession(model: model)
        let response = try await session.respond(
            to: "Name a color.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 6))
        #expect(!response.content.isEmpty)
        #expect(response.usage.output.totalTokenCount > 0)
        #expect(FileManager.default.fileExists(atPath: socket.path))

        // The service said where it listens and its pid; it is another process, and it is ended
        // here (it would otherwise wait 15 idle minutes).
        let log = try String(contentsOf: home.url.appendingPathComponent("engine.log"), encoding: .utf8)
        let pid = try #require(
            log.firstMatch(of: /listening on .* \(pid (\d+)\)/).flatMap { Int32($0.output.1) }, "engine.log: \(log)")
        #expect(pid != getpid())
        #expect(kill(pid, SIGTERM) == 0)
        for _ in 0..<200 where kill(pid, 0) == 0 { try await Task.sleep(for: .milliseconds(10)) }
    }
}
