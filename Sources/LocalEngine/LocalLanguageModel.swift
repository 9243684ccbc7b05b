import EngineClient
import FoundationModels
import ModelStore

/// A local GGUF model run by Sotto's engine in this process, as a ``LanguageModel``: the
/// engine's executor behind the iOS 27 seam.
///
/// ```swift
/// let model = LocalLanguageModel(model: .id("qwen2.5-coder-0.5b"))
/// let session = LanguageModelSession(model: model, instructions: "Be brief.")
/// ```
///
/// Apps use `SystemLanguageModel`, which runs the same engine in the engine service; this is
/// for processes that are release builds with the engine linked in (Sotto's server, the
/// service itself, tests). Availability, context size and token counts work as on
/// `SystemLanguageModel` (and availability is observable the same way).
public final class LocalLanguageModel: LanguageModel, Sendable {
    public typealias Executor = LocalExecutor

    /// The system model this wraps, on the in-process engine: it owns resolution and
    /// availability.
    package let system: SystemLanguageModel
    private let host: LocalEngineHost

    /// The model `SOTTO_MODEL` configures (nil), or another local model, with a context window
    /// of `contextSize` tokens (nil: 4,096, capped at the model's own).
    public convenience init(model: SystemLanguageModel.LocalModel? = nil, contextSize: Int? = nil) {
        self.init(model: model, contextSize: contextSize, store: ModelStore(), host: .shared)
    }

    package init(model: SystemLanguageModel.LocalModel?, contextSize: Int?, store: ModelStore, host: LocalEngineHost) {
        self.host = host
        system = SystemLanguageModel(
            model: model, contextSize: contextSize,
            backend: SystemModelBackend(locator: StoreModelLocator(store: store), engine: host))
    }

    public var capabilities: LanguageModelCapabilities { system.capabilities }

    public var executorConfiguration: LocalExecutor.Configuration { LocalExecutor.Configuration() }

    /// Whether the model can be used now, and if not, why (observable).
    public var availability: SystemLanguageModel.Availability { system.availability }

    /// Why the model is unavailable, in words; nil when it is available.
    public var unavailableExplanation: String? { system.unavailableExplanation }

    /// The context window in tokens (never waits for a load).
    public var contextSize: Int { system.contextSize }

    /// The number of tokens a prompt takes.
    public func tokenCount(for prompt: some PromptRepresentable) async throws -> Int {
        try await system.tokenCount(for: prompt)
    }

    /// The number of tokens transcript entries take, rendered as the model reads them.
    public func tokenCount(for transcriptEntries: some Collection<Transcript.Entry>) async throws -> Int {
        try await system.tokenCount(for: transcriptEntries)
    }

    /// The runtime of this model (loading it if needed), for the engine's tests.
    package func runtime() async throws -> ModelRuntime {
        try await host.runtime(for: system.target())
    }

    /// The file and context size this model runs with.
    package func target() throws -> SystemModelTarget { try system.target() }
}

/// Runs a ``LocalLanguageModel``'s requests on the engine in this process.
public struct LocalExecutor: LanguageModelExecutor {
    public typealias Model = LocalLanguageModel

    /// The model itself says which file it runs; every local model shares the executor.
    public struct Configuration: Hashable, Sendable {
        public init() {}
    }

    public init(configuration: Configuration) {}

    public func prewarm(model: LocalLanguageModel, transcript: Transcript) {
        SystemLanguageModel.Executor(configuration: .init()).prewarm(model: model.system, transcript: transcript)
    }

    nonisolated(nonsending) public func respond(
        to request: LanguageModelExecutorGenerationRequest, model: LocalLanguageModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        try await SystemLanguageModel.Executor(configuration: .init()).respond(
            to: request, model: model.system, streamingInto: channel)
    }
}
