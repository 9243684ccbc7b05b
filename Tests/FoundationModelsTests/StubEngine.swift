import Foundation
import FoundationModels
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

/// Model files by name, as a test says they are (nothing is on disk): a test double of the
/// backend's locator. Adding or removing a file tells watchers, as the engine client's inotify
/// watcher does.
final class StubLocator: SystemModelLocator {
    private struct State {
        var files: [String: SystemModelFile] = [:]
        var turnedOff = false
        var watchers: [Int: @Sendable () -> Void] = [:]
        var next = 0
    }

    private let state = Mutex(State())

    /// The path a model name leads to.
    static func path(of model: SystemLanguageModel.LocalModel?) -> String {
        switch model?.source {
        case nil: "/models/default.gguf"
        case .id(let id)?: "/models/\(id).gguf"
        case .path(let path)?: path
        }
    }

    init(files: [SystemLanguageModel.LocalModel?: Int] = [:]) {
        state.withLock { state in
            for (model, size) in files {
                state.files[Self.path(of: model)] = SystemModelFile(path: Self.path(of: model), size: size)
            }
        }
    }

    /// Makes the file of `model` appear with `size` bytes.
    func add(_ model: SystemLanguageModel.LocalModel?, size: Int = 1000) {
        let watchers = state.withLock { state in
            state.files[Self.path(of: model)] = SystemModelFile(path: Self.path(of: model), size: size)
            return Array(state.watchers.values)
        }
        watchers.forEach { $0() }
    }

    /// Turns models off, as `SOTTO_MODEL=off` does.
    func turnOff() { state.withLock { $0.turnedOff = true } }

    func locate(_ model: SystemLanguageModel.LocalModel?) -> Result<SystemModelFile, SystemModelLocationFailure> {
        state.withLock { state in
            if state.turnedOff { return .failure(.init(isTurnedOff: true, explanation: "models are turned off")) }
            let path = Self.path(of: model)
            guard let file = state.files[path] else {
                return .failure(.init(explanation: "no model file at \(path); run `sotto model pull`"))
            }
            return .success(file)
        }
    }

    func watch(_ model: SystemLanguageModel.LocalModel?, onChange handler: @escaping @Sendable () -> Void)
        -> EngineObservation
    {
        let id = state.withLock { state in
            state.next += 1
            state.watchers[state.next] = handler
            return state.next
        }
        return EngineObservation { [weak self] in _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) } }
    }
}

extension SystemLanguageModel {
    /// A system model whose file `locator` finds and whose requests `engine` runs.
    static func stub(
        _ model: LocalModel?, contextSize: Int? = nil, locator: StubLocator, engine: StubEngine = StubEngine()
    ) -> SystemLanguageModel {
        SystemLanguageModel(
            model: model, contextSize: contextSize, backend: SystemModelBackend(locator: locator, engine: engine))
    }
}
