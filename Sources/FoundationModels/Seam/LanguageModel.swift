/// A language model a session can use: its capabilities, and the configuration of the executor
/// that runs it (as in the iOS 27 SDK).
///
/// ``SystemLanguageModel`` is one; a model of your own plugs in the same way, outside this
/// module, with only the public API:
///
/// ```swift
/// struct EchoModel: LanguageModel {
///     typealias Executor = EchoExecutor
///     var capabilities: LanguageModelCapabilities { LanguageModelCapabilities(capabilities: []) }
///     var executorConfiguration: EchoExecutor.Configuration { .init() }
/// }
///
/// struct EchoExecutor: LanguageModelExecutor {
///     typealias Model = EchoModel
///     struct Configuration: Hashable, Sendable {}
///     init(configuration: Configuration) {}
///     func respond(
///         to request: LanguageModelExecutorGenerationRequest, model: EchoModel,
///         streamingInto channel: LanguageModelExecutorGenerationChannel
///     ) async throws {
///         await channel.send(.response(action: .appendText("echo", tokenCount: 1)))
///     }
/// }
///
/// let session = LanguageModelSession(model: EchoModel())
/// ```
public protocol LanguageModel: Sendable {
    /// What runs requests on this model.
    associatedtype Executor: LanguageModelExecutor where Self == Self.Executor.Model

    /// What the model can do. A session throws
    /// ``LanguageModelError/unsupportedCapability(_:)`` before calling the executor when a
    /// request needs a capability the model lacks.
    var capabilities: LanguageModelCapabilities { get }

    /// The configuration the executor is created with. Sessions share one executor per
    /// configuration (it is `Hashable` so that they can).
    var executorConfiguration: Self.Executor.Configuration { get }
}

/// Runs requests for a ``LanguageModel``: it receives the whole request (transcript, enabled
/// tools, schema, options) and streams what the model produces into a channel, as events.
///
/// The session owns the conversation: it applies the events to its transcript, builds the
/// snapshots of a stream, runs the tools the model calls and asks the executor again with their
/// output. An executor generates one model turn per call of
/// ``respond(to:model:streamingInto:)``; the channel is finished when that call returns or
/// throws.
///
/// When the task that runs `respond` is cancelled (the caller's task, or a stream nobody reads
/// any more), the executor should stop at once and return or throw `CancellationError`.
public protocol LanguageModelExecutor: Sendable {
    /// What an executor is created from; equal configurations share one executor.
    associatedtype Configuration: Hashable, Sendable
    /// The model this executor runs.
    associatedtype Model: LanguageModel

    /// Prepares for a request that starts with `transcript` (loads the model, fills caches). A
    /// hint: it must return at once and do its work in the background. The default does nothing.
    func prewarm(model: Self.Model, transcript: Transcript)

    /// Creates an executor. Called once per configuration in a process, before the first
    /// request or prewarm; it should be quick (load models later, in `respond` or `prewarm`).
    init(configuration: Self.Configuration) throws

    /// Generates the model's next turn for `request`, sending text, tool calls, usage and
    /// metadata into `channel` as they are produced.
    nonisolated(nonsending) func respond(
        to request: LanguageModelExecutorGenerationRequest, model: Self.Model,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws
}

extension LanguageModelExecutor {
    public func prewarm(model: Self.Model, transcript: Transcript) {}
}
