import Synchronization

/// The file a system model runs: its path and size, as a backend resolved it.
package struct SystemModelFile: Sendable, Equatable {
    package var path: String
    package var size: Int

    package init(path: String, size: Int) {
        self.path = path
        self.size = size
    }
}

/// Why a system model names no file.
package struct SystemModelLocationFailure: Swift.Error, Sendable, Equatable {
    /// The model is turned off by configuration (`SOTTO_MODEL=off`), not missing.
    package var isTurnedOff: Bool
    /// What was looked for, and how to get it (the path, the `sotto model pull` that fetches it).
    package var explanation: String

    package init(isTurnedOff: Bool = false, explanation: String) {
        self.isTurnedOff = isTurnedOff
        self.explanation = explanation
    }
}

/// Resolves the names of system models to files, and says when a name may resolve differently
/// (a file appeared or went).
package protocol SystemModelLocator: Sendable {
    /// The file `model` names; nil asks for the model the configuration names.
    func locate(_ model: SystemLanguageModel.LocalModel?) -> Result<SystemModelFile, SystemModelLocationFailure>

    /// Calls `handler` whenever what ``locate(_:)`` answers for `model` may have changed, until
    /// the returned token is released.
    func watch(_ model: SystemLanguageModel.LocalModel?, onChange handler: @escaping @Sendable () -> Void)
        -> EngineObservation
}

/// What runs the system models of a process: a locator for their files and an engine.
///
/// `FoundationModels` holds no engine code. An app that links Sotto's `FoundationModels`
/// product also links `EngineClient`, whose backend (the engine service, `sotto engine`, with
/// model names resolved by `ModelStore`) is found at first use through a conformance that
/// `EngineClient` declares (``SystemModelBackendProviding``). Sotto's own server and tests
/// install the engine in their process with ``SystemLanguageModel/runInProcess(on:)``.
package struct SystemModelBackend: Sendable {
    package var locator: any SystemModelLocator
    package var engine: any SystemModelEngine

    package init(locator: any SystemModelLocator, engine: any SystemModelEngine) {
        self.locator = locator
        self.engine = engine
    }
}

/// The type an engine client makes conform to ``SystemModelBackendProviding``: that
/// conformance, found at run time, is how `SystemLanguageModel.default` reaches the engine
/// without the app naming anything but `FoundationModels`.
package enum SystemModelBackendLink {}

/// Provides the backend of every system model that is not given one.
package protocol SystemModelBackendProviding {
    /// The backend, made once per process at the first use of a system model.
    static func makeBackend() -> SystemModelBackend
}

extension SystemModelBackend {
    /// The backend linked into this process, if any (see ``SystemModelBackendLink``).
    private static let linked: SystemModelBackend? = {
        // A dynamic cast looks for the conformance among every module linked in, at run time.
        let link: Any.Type = SystemModelBackendLink.self
        return (link as? any SystemModelBackendProviding.Type)?.makeBackend()
    }()

    private static let inProcessEngine = Mutex<(any SystemModelEngine)?>(nil)

    /// Runs every system model of this process on `engine`, keeping the linked backend's
    /// locator.
    package static func runInProcess(on engine: any SystemModelEngine) {
        inProcessEngine.withLock { $0 = engine }
    }

    /// The backend of system models that are not given one: the linked one, with the engine
    /// of this process when one was installed; nil when nothing was linked.
    package static var current: SystemModelBackend? {
        guard var backend = linked else { return nil }
        if let engine = inProcessEngine.withLock({ $0 }) { backend.engine = engine }
        return backend
    }

    /// Why system models cannot run in a process that links no backend.
    package static let missingExplanation =
        "this process links no engine for SystemLanguageModel: depend on the `FoundationModels` product of "
        + "Sotto's package (it brings the engine-service client), or give the session a model of your own"
}
