import EngineClient
import Foundation
import FoundationModels
import ModelStore
import Synchronization
import TestSupport
import Testing

/// The engine client's locator: model names resolved as every `sotto` command resolves them,
/// and files watched for with inotify.
@Suite struct StoreModelLocatorTests {
    private typealias LocalModel = SystemLanguageModel.LocalModel

    /// A data directory of its own with a `models` folder, removed at the end.
    private final class Home: @unchecked Sendable {
        // @unchecked Sendable: every property is a constant.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fm-\(UUID().uuidString)")
        var store: ModelStore { ModelStore(home: url) }

        init(createModels: Bool = true) throws {
            if createModels {
                try FileManager.default.createDirectory(
                    at: url.appendingPathComponent("models"), withIntermediateDirectories: true)
            }
        }

        func addModel(_ id: String = "smollm2-135m", size: Int = 1000) throws {
            try FileManager.default.createDirectory(
                at: url.appendingPathComponent("models"), withIntermediateDirectories: true)
            try Data(repeating: 0, count: size).write(to: url.appendingPathComponent("models/\(id).gguf"))
        }

        deinit { try? FileManager.default.removeItem(at: url) }
    }

    @Test(.onTestThreads) func localModelsResolveThroughTheStore() throws {
        let home = try Home()
        try home.addModel(size: 1234)
        let file = home.url.appendingPathComponent("models/smollm2-135m.gguf")
        let locator = StoreModelLocator(store: home.store)
        #expect(
            try locator.resolve(.id("smollm2-135m")).get()
                == ModelFile(url: file, catalogModel: ModelCatalog.model(id: "smollm2-135m"), size: 1234))
        #expect(try locator.locate(.path(file.path)).get() == SystemModelFile(path: file.path, size: 1234))
        #expect(locator.resolve(.id("smollm")) == .failure(.unknownModel("smollm", known: ModelCatalog.knownIDs)))
        let missing = home.url.appendingPathComponent("models/qwen2.5-coder-0.5b.gguf").path
        #expect(
            locator.resolve(.id("qwen2.5-coder-0.5b"))
                == .failure(.notDownloaded(id: "qwen2.5-coder-0.5b", path: missing)))
        guard case .failure(let failure) = locator.locate(.id("qwen2.5-coder-0.5b")) else {
            Issue.record("a missing model was located")
            return
        }
        #expect(!failure.isTurnedOff)
        #expect(failure.explanation.contains("sotto model pull qwen2.5-coder-0.5b"))
        let off = StoreModelLocator(store: ModelStore(home: home.url, configuredModel: "off"))
        guard case .failure(let turnedOff) = off.locate(nil) else {
            Issue.record("a turned-off model was located")
            return
        }
        #expect(turnedOff.isTurnedOff)
        let configured = StoreModelLocator(store: ModelStore(home: home.url, configuredModel: "smollm2-135m"))
        #expect(try configured.resolve(nil).get().url == file)
    }

    /// The watcher hears a model's file appear, even in a data directory that does not exist
    /// yet (it watches the nearest directory that does, and follows the new ones down).
    @Test func theWatcherHearsAFileAppearInADirectoryMadeLater() async throws {
        let home = try Home(createModels: false)
        let locator = StoreModelLocator(store: home.store)
        let calls = Mutex(0)
        let observation = locator.watch(.id("smollm2-135m")) { calls.withLock { $0 += 1 } }
        try FileManager.default.createDirectory(at: home.url, withIntermediateDirectories: true)
        try await waitUntil { calls.withLock { $0 } > 0 }
        let beforeFile = calls.withLock { $0 }
        try home.addModel()
        try await waitUntil { calls.withLock { $0 } > beforeFile }
        #expect(try locator.locate(.id("smollm2-135m")).get().size == 1000)
        _ = observation
    }

    /// A system model on this locator becomes available when its file appears, with no poll.
    @Test func availabilityFollowsTheFileWithoutPolling() async throws {
        let home = try Home()
        let model = SystemLanguageModel(
            model: .id("smollm2-135m"), contextSize: nil,
            backend: SystemModelBackend(locator: StoreModelLocator(store: home.store), engine: IdleEngine()))
        #expect(model.availability == .unavailable(.modelNotReady))
        let changed = Mutex(false)
        withObservationTracking {
            _ = model.availability
        } onChange: {
            changed.withLock { $0 = true }
        }
        try home.addModel()
        try await waitUntil { changed.withLock { $0 } }
        #expect(model.availability == .available)
    }

    /// Waits (at most 10 s) until `condition` holds.
    private func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<1000 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the condition did not hold within 10 s")
    }
}

/// An engine that runs nothing and reports every model as not loaded.
private final class IdleEngine: SystemModelEngine {
    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: SystemModelTarget,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {}
    func prewarm(model: SystemModelTarget, transcript: Transcript) {}
    func tokenCount(_ subject: TokenCountSubject, model: SystemModelTarget) async throws -> Int { 0 }
    func contextSize(of model: SystemModelTarget) -> Int? { nil }
    func state(of model: SystemModelTarget) -> EngineModelState { .notLoaded }
    func observeStates(_ handler: @escaping @Sendable () -> Void) -> EngineObservation { EngineObservation {} }
    var unreachableReason: String? { nil }
}
