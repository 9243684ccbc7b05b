import Dispatch
import Synchronization

/// A model with one KV cache that generates replies, one request at a time, reusing the cached
/// prefix of each new prompt (the earlier turns of a conversation are not evaluated again).
///
/// ```swift
/// let session = InferenceSession(model: model)
/// let prompt = try model.tokenizer.encode(model.renderChat([("user", "Hi")]), parseSpecial: true)
/// for try await event in session.generate(prompt: prompt, options: DecodingOptions(maxTokens: 50)) {
///     if case .token(_, let text) = event { print(text, terminator: "") }
/// }
/// ```
///
/// Requests queue up and run in order on the session's own serial queue (compute does not block
/// Swift's cooperative threads). Cancelling the consuming task, or dropping the stream, stops the
/// generation at the next token or prefill chunk.
// @unchecked Sendable: `evaluator`, the only mutable state, is touched only by work items on the
// serial `queue`, one at a time.
public final class InferenceSession: @unchecked Sendable {
    /// The model.
    public let model: Model
    private let evaluator: Evaluator
    private let queue = DispatchQueue(label: "sotto.inference-session", qos: .userInitiated)

    /// Creates a session with a KV cache for `contextLength` positions (default 4096, capped at the
    /// model's) and `threadCount` compute threads (default: all cores).
    public init(model: Model, contextLength: Int? = nil, threadCount: Int? = nil) {
        self.model = model
        evaluator = Evaluator(model: model, contextLength: contextLength, threadCount: threadCount)
    }

    /// Positions the KV cache holds.
    public var contextLength: Int { evaluator.contextLength }

    /// Generates a continuation of `prompt` (token ids, special tokens included), streaming events.
    ///
    /// The stream ends after `.finished`, or with an error: `InferenceError.promptTooLong` before
    /// any work, or an error thrown by `constraint`.
    ///
    /// Generation stops within a token when the stream is terminated (its reader is cancelled or
    /// drops it), or when `stopRequested` says so: the engine runs on its own queue, ahead of a
    /// reader that is not scheduled, so a caller that must stop it at once (from a task
    /// cancellation handler) sets a flag this reads before each token.
    public func generate(
        prompt: [Int], options: DecodingOptions, constraint: (any TokenConstraint)? = nil,
        stopRequested: (@Sendable () -> Bool)? = nil
    ) -> AsyncThrowingStream<GenerationEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<GenerationEvent, any Error>.makeStream()
        let stop = StopFlag()
        continuation.onTermination = { _ in stop.set() }
        queue.async { [self] in
            do {
                var runner = GenerationRunner(
                    evaluator: evaluator, options: options, constraint: constraint,
                    isStopped: { stop.isSet || stopRequested?() == true }, emit: { continuation.yield($0) })
                try runner.run(prompt: prompt)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        return stream
    }

    /// Runs `body` with exclusive use of the session's evaluator (for custom decoding loops), after
    /// any queued generations.
    public func withEvaluator<T: Sendable>(_ body: @escaping @Sendable (Evaluator) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                continuation.resume(with: Result { try body(evaluator) })
            }
        }
    }
}

/// A flag set once from any thread.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}
