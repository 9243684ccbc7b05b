import Foundation
import FoundationModels
import ModelStore
import Synchronization
import Testing

/// `SystemLanguageModel.availability` is observable: observers hear when the model file
/// appears, while the model loads, and when a load fails.
@Suite struct AvailabilityTests {
    /// Waits (at most `seconds`) for the next change of `model.availability`.
    private func nextChange(of model: SystemLanguageModel, within seconds: Int = 10) async -> Bool {
        let changed = Mutex(false)
        withObservationTracking {
            _ = model.availability
        } onChange: {
            changed.withLock { $0 = true }
        }
        for _ in 0..<(seconds * 100) {
            if changed.withLock({ $0 }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test func observersHearTheModelFileAppear() async throws {
        let home = try TemporaryModelHome(withModel: false)
        let model = SystemLanguageModel(
            model: .id("smollm2-135m"), contextSize: nil, store: home.store, engine: StubEngine())
        #expect(model.availability == .unavailable(.modelNotReady))
        #expect(model.unavailableExplanation?.contains("sotto model pull smollm2-135m") == true)
        async let changed = nextChange(of: model)
        try await Task.sleep(for: .milliseconds(50))
        try home.addModel()
        #expect(await changed)
        #expect(model.availability == .available)
        #expect(model.unavailableExplanation == nil)
    }

    @Test func observersHearALoadStartFinishAndFail() async throws {
        let home = try TemporaryModelHome()
        let engine = StubEngine()
        let model = SystemLanguageModel(model: .id("smollm2-135m"), contextSize: nil, store: home.store, engine: engine)
        #expect(model.availability == .available)

        async let loading = nextChange(of: model)
        try await Task.sleep(for: .milliseconds(20))
        engine.set(.loading, for: home.modelPath)
        #expect(await loading)
        #expect(model.availability == .unavailable(.modelNotReady))
        #expect(model.unavailableExplanation?.contains("loading") == true)

        async let loaded = nextChange(of: model)
        try await Task.sleep(for: .milliseconds(20))
        engine.set(.loaded, for: home.modelPath)
        #expect(await loaded)
        #expect(model.availability == .available)

        async let failed = nextChange(of: model)
        try await Task.sleep(for: .milliseconds(20))
        engine.set(.failed("the file is not a GGUF model"), for: home.modelPath)
        #expect(await failed)
        #expect(model.availability == .unavailable(.modelNotReady))
        #expect(model.unavailableExplanation == "the file is not a GGUF model")
    }

    @Test func noEngineToRunTheModelIsSaidPlainly() throws {
        let home = try TemporaryModelHome()
        let engine = StubEngine()
        engine.setUnreachable("no Sotto engine service is running and no `sotto` binary was found")
        let model = SystemLanguageModel(model: .id("smollm2-135m"), contextSize: nil, store: home.store, engine: engine)
        #expect(model.availability == .unavailable(.modelNotReady))
        #expect(model.unavailableExplanation?.contains("no `sotto` binary") == true)
    }

    /// The engine-service client says why the model cannot run when neither a service nor a
    /// binary is there, naming what it looked for.
    @Test func theServiceClientExplainsAMissingBinary() throws {
        let home = try TemporaryModelHome()
        let launcher = EngineLauncher(home: home.url, environment: ["PATH": "/nonexistent"])
        let client = EngineServiceClient(home: home.url, launcher: launcher)
        let reason = try #require(client.unreachableReason)
        #expect(reason.contains("SOTTO_BIN is not set"))
        #expect(reason.contains(home.url.appendingPathComponent("bin/sotto").path))
        #expect(reason.contains(home.url.appendingPathComponent("engine.sock").path))
        let bad = EngineLauncher(home: home.url, environment: ["SOTTO_BIN": "/nonexistent/sotto"])
        #expect(bad.binary() == .missing("SOTTO_BIN=/nonexistent/sotto is not an executable file"))
        let found = EngineLauncher(home: home.url, environment: ["PATH": "/nonexistent:/bin"])
        // Any executable named sotto would do; none is on /bin, so it is still missing.
        if case .found = found.binary() { Issue.record("found a sotto binary in /bin") }
    }
}
