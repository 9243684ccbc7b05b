import Foundation
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
/// This module holds Apple's API and no engine code. As Apple's framework talks to a system
/// service, an app that links Sotto's `FoundationModels` product runs its requests in Sotto's
/// engine service, `sotto engine` (one release-built process per data directory, listening on
/// `$SOTTO_HOME/engine.sock`, loading each model once for every app), through the engine client
/// the product links (`EngineClient`): see `docs/Porting.md`. So a debug build of the app runs
/// the model at release speed.
///
/// ``availability`` is observable: it changes when the model file appears or goes (after
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
    /// The backend given to this model directly (tests, the in-process engine); nil for the
    /// process's.
    private let givenBackend: SystemModelBackend?

    private let registrar = ObservationRegistrar()
    private let monitor = Mutex(Monitor())

    private struct Monitor {
        var availability: Availability?
        var watching = false
        var observations: [EngineObservation] = []
    }

    /// The context window when none is requested, as on Apple's on-device model.
    package static let defaultContextSize = 4096

    /// A model for a use case, with guardrails.
    public convenience init(useCase: UseCase = .general, guardrails: Guardrails = .default) {
        self.init(model: nil, contextSize: nil, backend: nil, useCase: useCase, guardrails: guardrails)
    }

    /// A specific local model (Sotto's own initializer).
    ///
    /// - Parameter contextSize: the context window in tokens; nil for 4,096 like Apple's model.
    ///   It is capped at what the model was trained for.
    public convenience init(
        model: LocalModel, contextSize: Int? = nil, useCase: UseCase = .general, guardrails: Guardrails = .default
    ) {
        self.init(model: model, contextSize: contextSize, backend: nil, useCase: useCase, guardrails: guardrails)
    }

    /// A model resolved and run by `backend` (nil: the process's).
    package init(
        model: LocalModel?, contextSize: Int?, backend: SystemModelBackend?, useCase: UseCase = .general,
        guardrails: Guardrails = .default
    ) {
        precondition(contextSize.map { $0 > 0 } ?? true, "contextSize must be positive")
        self.model = model
        self.requestedContextSize = contextSize
        self.givenBackend = backend
        self.useCase = useCase
        self.guardrails = guardrails
    }

    // MARK: The engine

    /// Runs every system model of this process on `engine` instead of the engine service: for
    /// Sotto's own server (a release build with the engine linked in) and tests.
    package static func runInProcess(on engine: any SystemModelEngine) {
        SystemModelBackend.runInProcess(on: engine)
    }

    /// What resolves and runs this model; nil when the process links none.
    package var backend: SystemModelBackend? { givenBackend ?? SystemModelBackend.current }

    /// The backend, or the error a request gets in a process that links none.
    package func requireBackend() throws -> SystemModelBackend {
        guard let backend else {
            throw LanguageModelSession.GenerationError.assetsUnavailable(
                .init(debugDescription: SystemModelBackend.missingExplanation))
        }
        return backend
    }

    /// The file and context size this model runs with.
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/assetsUnavailable(_:)`` when the model
    ///   does not resolve to a file, or nothing can run it.
    package func target() throws -> SystemModelTarget {
        switch try requireBackend().locator.locate(model) {
        case .success(let file):
            return SystemModelTarget(path: file.path, contextSize: requestedContextSize ?? Self.defaultContextSize)
        case .failure(let failure):
            throw LanguageModelSession.GenerationError.assetsUnavailable(.init(debugDescription: failure.explanation))
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
        guard let backend, let target = try? target() else { return requested }
        return backend.engine.contextSize(of: target) ?? requested
    }

    /// Whether the model is being loaded now (its availability is `modelNotReady` until the load
    /// ends): a request made meanwhile waits for the load rather than failing.
    package var isLoading: Bool {
        guard let backend, let target = try? target() else { return false }
        if case .loading = backend.engine.state(of: target) { return true }
        return false
    }

    /// The availability now, with its explanation.
    private func assess() -> (availability: Availability, explanation: String?) {
        guard let backend else { return (.unavailable(.deviceNotEligible), SystemModelBackend.missingExplanation) }
        let file: SystemModelFile
        switch backend.locator.locate(model) {
        case .failure(let failure):
            return (
                .unavailable(failure.isTurnedOff ? .appleIntelligenceNotEnabled : .modelNotReady), failure.explanation
            )
        case .success(let located):
            file = located
        }
        let memory = ProcessInfo.processInfo.physicalMemory
        guard Self.fits(file, physicalMemory: memory) else {
            return (
                .unavailable(.deviceNotEligible),
                "\(file.path) needs \(file.size / 1_048_576) MB and 512 MB more; this machine has "
                    + "\(memory / 1_048_576) MB"
            )
        }
        if let reason = backend.engine.unreachableReason { return (.unavailable(.modelNotReady), reason) }
        let target = SystemModelTarget(path: file.path, contextSize: requestedContextSize ?? Self.defaultContextSize)
        switch backend.engine.state(of: target) {
        case .notLoaded, .loaded: return (.available, nil)
        case .loading: return (.unavailable(.modelNotReady), "\(file.path) is loading")
        case .failed(let reason): return (.unavailable(.modelNotReady), reason)
        }
    }

    /// Starts following what availability depends on, on the first read: the model's file (the
    /// locator says when it appears or goes) and the engine's load states. Nothing is polled.
    private func startWatching() {
        let start = monitor.withLock { monitor -> Bool in
            defer { monitor.watching = true }
            return !monitor.watching
        }
        guard start, let backend else { return }
        let onChange: @Sendable () -> Void = { [weak self] in self?.refreshAvailability() }
        let observations = [
            backend.locator.watch(model, onChange: onChange), backend.engine.observeStates(onChange),
        ]
        let first = assess().availability
        monitor.withLock { monitor in
            monitor.observations = observations
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

    /// Whether a model file fits a machine with `physicalMemory` bytes: its weights are
    /// memory-mapped and must stay resident, with room left for the KV cache, activations and
    /// the rest of the system.
    package static func fits(_ file: SystemModelFile, physicalMemory: UInt64) -> Bool {
        physicalMemory >= UInt64(file.size) + 512 * 1024 * 1024
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
