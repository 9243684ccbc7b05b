import Foundation

/// The model file and context size a system model runs with: what an engine loads.
package struct SystemModelTarget: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The GGUF file (an absolute path, as `ModelStore` resolved it).
    package var path: String
    /// The context window asked for, in tokens (the engine caps it at the model's own).
    package var contextSize: Int

    package init(path: String, contextSize: Int) {
        self.path = path
        self.contextSize = contextSize
    }

    package var description: String { "\(path) (context \(contextSize))" }
}

/// What an engine knows about a model it runs.
package enum EngineModelState: Sendable, Equatable, Codable {
    /// Not loaded (it will be on the first request or prewarm).
    case notLoaded
    /// Being loaded.
    case loading
    /// Loaded and ready.
    case loaded
    /// The last load failed, for this reason (a changed file is tried again).
    case failed(String)
}

/// What a token count is asked about (the `tokenCount(for:)` overloads).
package enum TokenCountSubject: Sendable {
    /// A prompt's or instructions' segments, as the model reads them.
    case segments([Transcript.Segment])
    /// Tool definitions, as JSON.
    case tools([Transcript.ToolDefinition])
    /// A schema, as the instruction that puts it in the prompt.
    case schema(GenerationSchema)
    /// Transcript entries, rendered as the model's prompt.
    case transcript(Transcript)
}

/// Where a ``SystemLanguageModel``'s requests run, as part of its ``SystemModelBackend``:
/// Sotto's engine service over a Unix socket (`EngineClient`'s `EngineServiceClient`, what apps
/// get), or the engine in this process, for Sotto's own server and tests (`LocalEngine`
/// installs itself with ``SystemLanguageModel/runInProcess(on:)``).
package protocol SystemModelEngine: Sendable {
    /// Generates one turn for `request` on `model`.
    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: SystemModelTarget,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws

    /// Starts loading `model` and reading `transcript` ahead; returns at once.
    func prewarm(model: SystemModelTarget, transcript: Transcript)

    /// The number of tokens `subject` takes with `model`'s tokenizer.
    func tokenCount(_ subject: TokenCountSubject, model: SystemModelTarget) async throws -> Int

    /// `model`'s context window, if the engine knows it without waiting for a load.
    func contextSize(of model: SystemModelTarget) -> Int?

    /// What the engine knows of `model`.
    func state(of model: SystemModelTarget) -> EngineModelState

    /// Calls `handler` whenever the state of a model changes, until the returned token is
    /// released.
    func observeStates(_ handler: @escaping @Sendable () -> Void) -> EngineObservation

    /// Why the engine cannot be reached, or nil when it can (or can be started).
    var unreachableReason: String? { get }
}

/// Keeps an engine's observer registered until it is released.
package final class EngineObservation: Sendable {
    private let cancel: @Sendable () -> Void

    package init(cancel: @escaping @Sendable () -> Void) {
        self.cancel = cancel
    }

    deinit { cancel() }
}
