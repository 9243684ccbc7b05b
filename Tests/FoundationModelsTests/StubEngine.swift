import Foundation
import FoundationModels
import ModelStore
import Synchronization

/// An engine for system models that runs nothing: it counts words, and reports the load state
/// a test sets. (A test double of the package's `SystemModelEngine`, the seam between
/// `SystemLanguageModel` and the engine service or the in-process engine.)
final class StubEngine: SystemModelEngine {
    private struct State {
        var states: [String: EngineModelState] = [:]
        var observers: [Int: @Sendable () -> Void] = [:]
        var next = 0
        var targets: [SystemModelTarget] = []
        var unreachable: String?
    }

    private let state = Mutex(State())
    private let size: Int?

    init(contextSize: Int? = nil) {
        size = contextSize
    }

    /// The targets token counts were asked for.
    var targets: [SystemModelTarget] { state.withLock { $0.targets } }

    func set(_ modelState: EngineModelState, for path: String) {
        let observers = state.withLock { state in
            state.states[path] = modelState
            return Array(state.observers.values)
        }
        observers.forEach { $0() }
    }

    func setUnreachable(_ reason: String?) { state.withLock { $0.unreachable = reason } }

    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: SystemModelTarget,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        await channel.send(.response(action: .appendText("stub", tokenCount: 1)))
    }

    func prewarm(model: SystemModelTarget, transcript: Transcript) {}

    func tokenCount(_ subject: TokenCountSubject, model: SystemModelTarget) async throws -> Int {
        state.withLock { $0.targets.append(model) }
        switch subject {
        case .segments(let segments): return ScriptedExecutor.words(segments.map(\.description).joined(separator: " "))
        case .tools(let tools): return tools.count
        case .schema: return 1
        case .transcript(let transcript): return ScriptedExecutor.words(transcript.texts.joined(separator: " "))
        }
    }

    func contextSize(of model: SystemModelTarget) -> Int? { size }

    func state(of model: SystemModelTarget) -> EngineModelState {
        state.withLock { $0.states[model.path] } ?? .notLoaded
    }

    func observeStates(_ handler: @escaping @Sendable () -> Void) -> EngineObservation {
        let id = state.withLock { state in
            state.next += 1
            state.observers[state.next] = handler
            return state.next
        }
        return EngineObservation { [weak self] in _ = self?.state.withLock { $0.observers.removeValue(forKey: id) } }
    }

    var unreachableReason: String? { state.withLock { $0.unreachable } }
}

/// A data directory of its own, removed at the end, where a catalog model's file can be made
/// to appear (a small file: nothing loads it).
final class TemporaryModelHome: @unchecked Sendable {
    // @unchecked Sendable: every property is a constant.
    let url: URL
    let store: ModelStore
    let modelPath: String

    init(withModel: Bool = true, id: String = "smollm2-135m") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("fm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: url.appendingPathComponent("models"), withIntermediateDirectories: true)
        store = ModelStore(home: url)
        modelPath = store.fileURL(forID: id).path
        if withModel { try addModel() }
    }

    func addModel() throws {
        try Data(repeating: 0, count: 1000).write(to: URL(fileURLWithPath: modelPath))
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
