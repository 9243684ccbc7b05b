import EngineClient
import Foundation
import FoundationModels
import TestSupport
import Testing

/// The backend an app gets by linking the `FoundationModels` product: found at run time through
/// the engine client's conformance, with nothing registered by hand.
@Suite struct LinkedBackendTests {
    @Test(.onTestThreads) func systemModelsFindTheEngineClient() throws {
        let backend = try #require(SystemModelBackend.current, "the engine client's backend was not found")
        #expect(backend.locator is StoreModelLocator)
    }

    @Test func aMissingModelMakesRequestsFailWithAssetsUnavailable() async throws {
        let model = SystemLanguageModel(model: .path("/nonexistent/model.gguf"))
        #expect(model.availability == .unavailable(.modelNotReady))
        #expect(model.unavailableExplanation?.contains("/nonexistent/model.gguf") == true)
        let session = LanguageModelSession(model: model)
        await #expect {
            try await session.respond(to: "Hi")
        } throws: { error in
            guard case LanguageModelSession.GenerationError.assetsUnavailable(let context) = error else { return false }
            return context.debugDescription.contains("/nonexistent/model.gguf")
        }
        #expect(session.transcript.isEmpty)
    }

    /// The engine-service client says why the model cannot run when neither a service nor a
    /// binary is there, naming what it looked for.
    @Test(.onTestThreads) func theServiceClientExplainsAMissingBinary() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("fm-\(UUID().uuidString)")
        let launcher = EngineLauncher(home: home, environment: ["PATH": "/nonexistent"])
        let client = EngineServiceClient(home: home, launcher: launcher)
        let reason = try #require(client.unreachableReason)
        #expect(reason.contains("SOTTO_BIN is not set"))
        #expect(reason.contains(home.appendingPathComponent("bin/sotto").path))
        #expect(reason.contains(home.appendingPathComponent("engine.sock").path))
        let bad = EngineLauncher(home: home, environment: ["SOTTO_BIN": "/nonexistent/sotto"])
        #expect(bad.binary() == .missing("SOTTO_BIN=/nonexistent/sotto is not an executable file"))
        let found = EngineLauncher(home: home, environment: ["PATH": "/nonexistent:/bin"])
        // Any executable named sotto would do; none is on /bin, so it is still missing.
        if case .found = found.binary() { Issue.record("found a sotto binary in /bin") }
    }
}
