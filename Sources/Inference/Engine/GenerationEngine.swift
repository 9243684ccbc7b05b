import Executors
import Synchronization

/// The one owner of a model's generation: KV-cache slots, and every request on them, run by one
/// loop on a thread of its own (a ``Executors/ThreadExecutor``), never on Swift's
/// cooperative threads.
///
/// ```swift
/// let engine = GenerationEngine(model: model, slotCount: 4)
/// let prompt = try model.chatFormat.promptTokens(for: [ChatMessage(role: "user", content: "Hi")])
/// for try await event in engine.generate(prompt: prompt, options: DecodingOptions(maxTokens: 50)) {
///     if case .token(_, let text) = event { print(text, terminator: "") }
/// }
/// ```
///
/// Requests arrive from any thread or task (``submit(_:)``) and are handed to the loop; the loop
/// takes a slot for each (the one that already holds the longest prefix of its prompt, so a
/// conversation's follow-up only evaluates its new tokens), and runs the requests side by side,
/// a forward step each in turn. Events go out through each request's stream as they happen; a
/// reader that awaits them holds no thread meanwhile.
public final class GenerationEngine: Sendable {
    /// The model.
    public let model: Model
    /// Positions each slot's KV cache holds.
    public let contextLength: Int
    /// Slots (KV caches) at most; each holds one conversation's prefix between requests.
    public let slotCount: Int

    private let executor: ThreadExecutor
    private let inbox = Mutex<Inbox>(Inbox())
    private let loop: EngineLoop

    private struct Inbox {
        var commands: [EngineLoop.Command] = []
        /// Whether a drain is queued or running on the executor.
        var isDraining = false
    }

    /// An engine with `slotCount` KV caches of `contextLength` positions (default 4096, capped at
    /// the model's), computing on the process's compute pool (or one of `threadCount` threads of
    /// its own, for tests and benchmarks of thread counts).
    public init(model: Model, contextLength: Int? = nil, threadCount: Int? = nil, slotCount: Int = 1) {
        precondition(slotCount > 0, "slotCount must be positive")
        self.model = model
        let requested = contextLength ?? Evaluator.defaultContextLength
        precondition(requested > 0, "contextLength must be positive")
        self.contextLength = min(requested, model.config.contextLength)
        self.slotCount = slotCount
        executor = ThreadExecutor(name: "sotto.engine")
        loop = EngineLoop(model: model, contextLength: self.contextLength, threadCount: threadCount, slots: slotCount)
    }

    /// Starts `request`; its events come through the handle.
    public func submit(_ request: GenerationRequest) -> GenerationHandle {
        let (stream, continuation) = AsyncThrowingStream<GenerationEvent, any Error>.makeStream()
        let core = RequestCore(continuation: continuation) { [weak self] in self?.send(.wake) }
        continuation.onTermination = { _ in core.cancel() }
        send(.submit(request, core))
        return GenerationHandle(events: stream, core: core)
    }

    /// Generates a continuation of `prompt` (token ids, special tokens included), streaming
    /// events; dropping the stream stops the generation within a forward step.
    public func generate(
        prompt: [Int], options: DecodingOptions, constraint: (any TokenConstraint)? = nil
    ) -> AsyncThrowingStream<GenerationEvent, any Error> {
        submit(GenerationRequest(prompt: prompt, options: options, constraint: constraint)).events
    }

    /// Reads `prompt` into a slot ahead of a request that continues it; returns when it is
    /// there (at once when a slot already holds it).
    public func prewarm(prompt: [Int]) async {
        let handle = submit(GenerationRequest(prompt: prompt, readsPromptOnly: true))
        _ = await handle.completion()
    }

    /// The tokens each slot's cache holds (for tests: what a prewarm or a turn left behind).
    public var cachedPrompts: [[Int]] {
        get async {
            await withCheckedContinuation { continuation in
                send(.inspect { loop in continuation.resume(returning: loop.cachedPrompts) })
            }
        }
    }

    // MARK: The loop's thread

    private func send(_ command: EngineLoop.Command) {
        let starts = inbox.withLock { inbox in
            inbox.commands.append(command)
            if inbox.isDraining { return false }
            inbox.isDraining = true
            return true
        }
        if starts { executor.execute { [self] in drain() } }
    }

    /// Runs on the executor's thread: takes the commands, steps, and goes on while there is
    /// work; the next command starts it again.
    private func drain() {
        while true {
            let commands = inbox.withLock { inbox -> [EngineLoop.Command]? in
                if inbox.commands.isEmpty && !loop.hasWork {
                    inbox.isDraining = false
                    return nil
                }
                defer { inbox.commands = [] }
                return inbox.commands
            }
            guard let commands else { return }
            for command in commands { loop.apply(command) }
            loop.step()
        }
    }
}
