import Synchronization

/// One generation the engine is asked for.
///
/// ```swift
/// let request = GenerationRequest(prompt: prompt, options: DecodingOptions(maxTokens: 64))
/// let handle = engine.submit(request)
/// for try await event in handle.events { … }
/// ```
public struct GenerationRequest: Sendable {
    /// Token ids, special tokens included (``ChatFormat/promptTokens(messages:tools:addGenerationPrompt:)``).
    public var prompt: [Int]
    public var options: DecodingOptions
    /// Steers each token (a grammar, tool calls); nil for free text.
    public var constraint: (any TokenConstraint)?
    /// How much a person is waiting for it (``BatchScheduler``: higher first, one slot kept for
    /// interactive requests).
    public var priority: GenerationPriority
    /// Whose request it is: requests of equal priority are shared fairly between users.
    public var user: String?
    /// Requests with the same key (a suggestion's channel and reader, say) supersede each other:
    /// a newer one, or ``GenerationEngine/markStale(key:)``, drops the older ones that have not
    /// started and stops those that have.
    public var stalenessKey: String?
    /// Only read the prompt into a KV slot, ahead of a request that will continue it (nothing is
    /// generated; done at once when a slot already holds the prompt).
    public var readsPromptOnly: Bool

    public init(
        prompt: [Int], options: DecodingOptions = DecodingOptions(), constraint: (any TokenConstraint)? = nil,
        priority: GenerationPriority = .interactive, user: String? = nil, stalenessKey: String? = nil,
        readsPromptOnly: Bool = false
    ) {
        self.prompt = prompt
        self.options = options
        self.constraint = constraint
        self.priority = priority
        self.user = user
        self.stalenessKey = stalenessKey
        self.readsPromptOnly = readsPromptOnly
    }
}

/// A submitted request: its events, a way to stop it, and its end.
///
/// The generation stops within a forward step of ``cancel()`` (from any thread, a task's
/// cancellation handler included), or when the reader of ``events`` drops the stream.
public final class GenerationHandle: Sendable {
    /// What the generation does, in order: `promptProcessed`, `token`s, `finished`; or an error
    /// (`InferenceError.promptTooLong` before any work, the constraint's error).
    public let events: AsyncThrowingStream<GenerationEvent, any Error>
    let core: RequestCore

    init(events: AsyncThrowingStream<GenerationEvent, any Error>, core: RequestCore) {
        self.events = events
        self.core = core
    }

    /// Stops the generation at the next forward step (or before it starts).
    public func cancel() { core.cancel() }

    /// Whether ``cancel()`` was called or the stream dropped.
    public var isCancelled: Bool { core.isCancelled }

    /// Waits until the engine is done with the request (finished, stopped or failed) and has
    /// given its KV slot back; the summary of what it did, or nil when it failed.
    ///
    /// A cancelled reader no longer sees `.finished`; this still tells what was generated, the
    /// tokens made after the reader stopped included.
    public func completion() async -> GenerationSummary? {
        await core.completion()
    }
}

/// What the engine and a handle share about one request: the stop flag (the one flag for the
/// whole path, set by whoever stops it) and the completion.
final class RequestCore: Sendable {
    let continuation: AsyncThrowingStream<GenerationEvent, any Error>.Continuation
    private let cancelled = Atomic<Bool>(false)
    private let state = Mutex<
        (done: Bool, summary: GenerationSummary?, waiters: [CheckedContinuation<GenerationSummary?, Never>])
    >(
        (false, nil, []))
    /// Wakes the engine so it sees the flag now rather than at its next step.
    private let wake: @Sendable () -> Void

    init(
        continuation: AsyncThrowingStream<GenerationEvent, any Error>.Continuation, wake: @escaping @Sendable () -> Void
    ) {
        self.continuation = continuation
        self.wake = wake
    }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    func cancel() {
        guard !cancelled.exchange(true, ordering: .relaxed) else { return }
        wake()
    }

    /// Called once by the engine when it is done with the request.
    func complete(_ summary: GenerationSummary?) {
        let waiters = state.withLock { state in
            state.done = true
            state.summary = summary
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: summary) }
    }

    func completion() async -> GenerationSummary? {
        await withCheckedContinuation { continuation in
            let done: GenerationSummary?? = state.withLock { state in
                if state.done { return .some(state.summary) }
                state.waiters.append(continuation)
                return .none
            }
            if let done { continuation.resume(returning: done) }
        }
    }
}
