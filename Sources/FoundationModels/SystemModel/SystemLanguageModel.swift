import Foundation
import ModelStore
import Observation
import Synchronization

/// The language model a session uses: on Linux, a local GGUF model run by Sotto's engine.
///
/// ```swift
/// switch SystemLanguageModel.default.availability {
/// case .available:
///     let session = LanguageModelSession()
/// case .unavailable(.modelNotReady):
///     print("Download the model first: sotto model pull")
/// case .unavailable(let reason):
///     print("Unavailable: \(reason)")
/// }
/// ```
///
/// `default` uses the model `SOTTO_MODEL` names (a catalog id such as `qwen2.5-coder-1.5b`, or
/// the path of a `.gguf` file), or `qwen2.5-coder-1.5b` when it is not set, in the data
/// directory `SOTTO_HOME` names (`~/.sotto` by default), as `ModelStore` resolves names for every
/// `sotto` command. Pick another model with ``init(model:contextSize:useCase:guardrails:)``.
///
/// As Apple's framework talks to a system service, this one runs requests in Sotto's engine
/// service, `sotto engine`: one release-built process per data directory, listening on
/// `$SOTTO_HOME/engine.sock`, which loads each model once for every app. It is started on the
/// first request when it is not running (see `docs/Porting.md` for how the `sotto` binary is
/// found). So an app links no engine code, and a debug build of the app runs the model at
/// release speed.
///
/// ``availability`` is observable: it changes when the model file appears (after
/// `sotto model pull`), while the model loads, and when a load fails.
public final class SystemLanguageModel: Sendable, Observable {
    /// The model `SOTTO_MODEL` configures, for general use.
    public static let `default` = SystemLanguageModel()

    /// What the model is used for (Sotto runs every use case the same way).
    public let useCase: UseCase
    /// The guardrails it applies (a no-op on Linux: there is no safety model).
    public let guardrails: Guardrails

    /// The model asked for; nil for the one `SOTTO_MODEL` configures.
    private let model: LocalModel?
    private let requestedContextSize: Int?
    private let store: ModelStore
    /// The engine given to this model directly (tests); nil for the process's.
    private let givenEngine: (any SystemModelEngine)?

    private let registrar = ObservationRegistrar()
    private let monitor = Mutex(Monitor())

    private struct Monitor {
        var availability: Availability?
        var watcher: Task<Void, Never>?
        var observation: EngineObservation?
    }

    /// The context window when none is requested, as on Apple's on-device model.
    package static let defaultContextSize = 4096

    /// A model for a use case, with guardrails.
    public convenience init(useCase: UseCase = .general, guardrails: Guardrails = .default) {
        self.init(
            model: nil, contextSize: nil, store: ModelStore(), engine: nil, useCase: useCase, guardrails: guardrails)
    }

    /// A specific local model (Sotto's own initializer).
    ///
    /// - Parameter contextSize: the context window in tokens; nil for 4,096 like Apple's model.
    ///   It is capped at what the model was trained for.
    public convenience init(
        model: LocalModel, contextSize: Int? = nil, useCase: UseCase = .general, guardrails: Guardrails = .default
    ) {
        self.init(
            model: model, contextSize: contextSize, store: ModelStore(), engine: nil, useCase: useCase,
            guardrails: guardrails)
    }

    /// A model resolved in `store` and run by `engine` (nil: the process's engine).
    package init(
        model: LocalModel?, contextSize: Int?, store: ModelStore, engine: (any SystemModelEngine)?,
        useCase: UseCase = .general, guardrails: Guardrails = .default
    ) {
        precondition(contextSize.map { $0 > 0 } ?? true, "contextSize must be positive")
        self.model = model
        self.requestedContextSize = contextSize
        self.store = store
        self.givenEngine = engine
        self.useCase = useCase
        self.guardrails = guardrails
    }

    deinit {
        monitor.withLock { $0.watcher }?.cancel()
    }

    // MARK: The engine

    private static let inProcessEngine = Mutex<(any SystemModelEngine)?>(nil)

    /// Runs every system model of this process on `engine` instead of the engine service: for
    /// Sotto's own server (a release build with the engine linked in) and tests.
    package static func runInProcess(on engine: any SystemModelEngine) {
        inProcessEngine.withLock { $0 = engine }
    }

    /// The engine this model's requests run on.
    package var engine: any SystemModelEngine {
        givenEngine ?? Self.inProcessEngine.withLock { $0 } ?? EngineServiceClient.shared(home: store.home)
    }

    /// The file and context size this model runs with.
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/assetsUnavailable(_:)`` when the model
    ///   does not resolve to a file.
    package func target() throws -> SystemModelTarget {
        switch LocalModel.resolve(model, in: store) {
        case .success(let file):
            return SystemModelTarget(path: file.path, contextSize: requestedContextSize ?? Self.defaultContextSize)
        case .failure(let error):
            throw LanguageModelSession.GenerationError.assetsUnavailable(.init(debugDescription: error.description))
        }
    }

    // MARK: Availability

    /// Whether the model can be used now, and if not, why. Checking does not load the model.
    ///
    /// Observable: it changes when the model file appears or goes, while the model loads, and
    /// when a load fails.
    public var availability: Availability {
        registrar.access(self, keyPath: \.availability)
        startWatching()
        return assess().availability
    }

    /// Whether ``availability`` is `.available`.
    public var isAvailable: Bool { availability == .available }

    /// Why the model is unavailable, in words (the path that was looked for, the load error, the
    /// missing engine); nil when it is available. Sotto's own: Apple's reasons have no text.
    public var unavailableExplanation: String? {
        registrar.access(self, keyPath: \.availability)
        return assess().explanation
    }

    /// The context window in tokens: instructions, transcript, prompt and response together.
    /// It never waits for a model to load.
    public var contextSize: Int {
        let requested = requestedContextSize ?? Self.defaultContextSize
        guard let target = try? target() else { return requested }
        return engine.contextSize(of: target) ?? requested
    }

    /// Whether the model is being loaded now (its availability is `modelNotReady` until the load
    /// ends): a request made meanwhile waits for the load rather than failing.
    package var isLoading: Bool {
        guard let target = try? target() else { return false }
        if case .loading = engine.state(of: target) { return true }
        return false
    }

    /// The availability now, with its explanation.
    private func assess() -> (availability: Availability, explanation: String?) {
        let resolution = LocalModel.resolve(model, in: store)
        let fileAvailability = Self.availability(of: resolution, physicalMemory: ProcessInfo.processInfo.physicalMemory)
        switch (fileAvailability, resolution) {
        case (.unavailable(let reason), .failure(let error)):
            return (.unavailable(reason), error.description)
        case (.unavailable(let reason), .success(let file)):
            return (
                .unavailable(reason),
                "\(file.path) needs \(file.size / 1_048_576) MB and 512 MB more; this machine has "
                    + "\(ProcessInfo.processInfo.physicalMemory / 1_048_576) MB"
            )
        case (.available, .failure):
            return (.available, nil)  // not reached: a failure is never available
        case (.available, .success(let file)):
            let engine = self.engine
            if let reason = engine.unreachableReason { return (.unavailable(.modelNotReady), reason) }
            let target = SystemModelTarget(
                path: file.path, contextSize: requestedContextSize ?? Self.defaultContextSize)
            switch engine.state(of: target) {
            case .notLoaded, .loaded: return (.available, nil)
            case .loading: return (.unavailable(.modelNotReady), "\(file.path) is loading")
            case .failed(let reason): return (.unavailable(.modelNotReady), reason)
            }
        }
    }

    /// Starts following what availability depends on: the model file (checked every second)
    /// and the engine's load states.
    private func startWatching() {
        let start = monitor.withLock { monitor -> Bool in
            guard monitor.watcher == nil else { return false }
            monitor.watcher = Task.detached(priority: .utility) { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    guard let model = self else { return }
                    model.refreshAvailability()
                }
            }
            return true
        }
        guard start else { return }
        let observation = engine.observeStates { [weak self] in self?.refreshAvailability() }
        let first = assess().availability
        monitor.withLock { monitor in
            monitor.observation = observation
            if monitor.availability == nil { monitor.availability = first }
        }
    }

    /// Notifies observers if availability changed since it was last seen.
    private func refreshAvailability() {
        let now = assess().availability
        let changed = monitor.withLock { monitor -> Bool in
            defer { monitor.availability = now }
            return monitor.availability != now
        }
        if changed { registrar.withMutation(of: self, keyPath: \.availability) {} }
    }

    /// The availability a resolved model has on a machine with `physicalMemory` bytes, from its
    /// file alone.
    package static func availability(
        of resolution: Result<ModelFile, ModelStoreError>, physicalMemory: UInt64
    ) -> Availability {
        switch resolution {
        case .failure(.turnedOff): return .unavailable(.appleIntelligenceNotEnabled)
        case .failure: return .unavailable(.modelNotReady)
        case .success(let file):
            // Weights are memory-mapped and must stay resident; leave room for the KV cache,
            // activations and the rest of the system.
            let needed = UInt64(file.size) + 512 * 1024 * 1024
            return physicalMemory >= needed ? .available : .unavailable(.deviceNotEligible)
        }
    }
}

extension SystemLanguageModel {
    /// Whether a model can be used.
    @frozen public enum Availability: Equatable, Sendable {
        /// Ready.
        case available
        /// Not usable, for `reason`.
        case unavailable(UnavailableReason)

        /// Why a model is unavailable.
        public enum UnavailableReason: Equatable, Sendable, Hashable {
            /// The machine does not have what the model needs (memory).
            case deviceNotEligible
            /// Turned off by configuration (`SOTTO_MODEL=off`).
            case appleIntelligenceNotEnabled
            /// The model is not ready: its file is not on disk (not downloaded yet, or
            /// `SOTTO_MODEL` names a missing file or an unknown id), it is loading, its last load
            /// failed, or no engine can run it (``SystemLanguageModel/unavailableExplanation``
            /// says which).
            case modelNotReady
        }
    }

    /// What a model is used for.
    public struct UseCase: Sendable, Equatable {
        private let name: String

        /// General-purpose prompting.
        public static let general = UseCase(name: "general")
        /// Tagging and extracting content (topics, entities, actions).
        public static let contentTagging = UseCase(name: "contentTagging")
    }

    /// Checks applied to the input and output of a model.
    public struct Guardrails: Sendable {
        private let name: String

        /// All guardrails on.
        public static let `default` = Guardrails(name: "default")
        /// Fewer refusals when transforming content the user provides.
        public static let permissiveContentTransformations = Guardrails(name: "permissiveContentTransformations")
    }

    /// The languages the model understands well.
    public var supportedLanguages: Set<Locale.Language> {
        Set(Self.languageIdentifiers.map { Locale.Language(identifier: $0) })
    }

    /// Whether the model supports the language of `locale`.
    public func supportsLocale(_ locale: Locale = Locale.current) -> Bool {
        guard let code = locale.language.languageCode?.identifier else { return false }
        return Self.languageIdentifiers.contains { $0.hasPrefix(code) }
    }

    /// The languages of Apple's on-device model, which the default models also handle.
    private static let languageIdentifiers = [
        "en", "da", "nl", "fr", "de", "it", "nb", "pt", "es", "sv", "tr", "zh-Hans", "zh-Hant", "ja", "ko", "vi",
    ]
}
