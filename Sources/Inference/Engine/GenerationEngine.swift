import Executors
import Synchronization

/// The one owner of a model's generation: KV-cache slots, and every request on them, run by one
/// loop on a thread of its own (a ``Executors/ThreadExecutor``), never on Swift's
/// cooperative threads.
///
/// ```swift
/// let engine = GenerationEngine(model: model, slotCount: 8)
/// let prompt = try model.chatFormat.promptTokens(for: [ChatMessage(role: "user", content: "Hi")])
/// for try await event in engine.generate(prompt: prompt, options: DecodingOptions(maxTokens: 50)) {
///     if case .token(_, let text) = event { print(text, terminator: "") }
/// }
/// ```
///
/// Requests arrive from any thread or task (``submit(_:)``) and are handed to the loop. Each
/// takes a slot (the one already holding the longest prefix of its prompt, so a conversation's
/// follow-up only evaluates its new tokens); then every step is one forward pass for all of them:
/// the weights are read once for the batch, each request with its own KV cache, positions and
/// attention. Prompts are read in chunks between the others' tokens, a prompt's start that
/// another slot holds is copied rather than evaluated, and when few requests are generating each
/// has a draft copied from its own tokens verified in the same pass (``PromptLookup``). Who runs
/// first is the ``BatchScheduler``'s rule: priority, fairness between users, staleness.
///
/// Events go out through each request's stream as they happen; a reader that awaits them holds
/// no thread meanwhile.
public final class GenerationEngine: Sendable {
    /// The model.
    public let model: Model
    /// Positions each slot's KV cache holds.
    public let contextLength: Int
    /// Slots (KV caches) at most: requests running at once, and conversations kept between turns.
    public let slotCount: Int

    private let executor: ThreadExecutor
    private let inbox = Mutex<Inbox>(Inbox())
    private let loop: EngineLoop
    private let statistics = EngineStatistics()

    private struct Inbox {
        var commands: [EngineLoop.Command] = []
        /// Whether a drain is queued or running on the executor.
        var isDraining = false
    }

    /// An engine with `slotCount` KV caches of `contextLength` positions (default 4096, capped at
    /// the model's), computing on the process's compute pool (or one of `threadCount` threads of
    /// its own, for tests and benchmarks of thread counts).
    ///
    /// - Parameters:
    ///   - speculates: whether generating requests get drafts copied from their own tokens to
    ///     verify when few are running (the output is the same either way).
    ///   - rowsPerStep: rows (tokens) of one forward step at most.
    public init(
        model: Model, contextLength: Int? = nil, threadCount: Int? = nil, slotCount: Int = 1, speculates: Bool = true,
        rowsPerStep: Int = 128
    ) {
        precondition(slotCount > 0, "slotCount must be positive")
        precondition(rowsPerStep >= 16, "rowsPerStep must be at least 16")
        self.model = model
        let requested = contextLength ?? Evaluator.defaultContextLength
        precondition(requested > 0, "contextLength must be positive")
        self.contextLength = min(requested, model.config.contextLength)
        self.slotCount = slotCount
        executor = ThreadExecutor(name: "sotto.engine")
        var limits = BatchScheduler.Limits(slots: slotCount)
        limits.rowBudget = rowsPerStep
        limits.prefillAlone = rowsPerStep
        loop = EngineLoop(
            model: model, contextLength: self.contextLength, threadCount: threadCount,
            configuration: EngineLoop.Configuration(limits: limits, speculates: speculates), statistics: statistics)
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
    public func prewarm(prompt: [Int], priority: GenerationPriority = .interactive) async {
        let handle = submit(GenerationRequest(prompt: prompt, priority: priority, readsPromptOnly: true))
        _ = await handle.completion()
    }

    /// The requests submitted so far with staleness key `key` are no longer wanted: those not
    /// started are dropped (their streams end with a `.cancelled` summary), those running stop
    /// at the next step.
    public func markStale(key: String) {
        send(.markStale(key))
    }

    /// What the engine is doing now (queue, batch, speed); never waits for the loop.
    public var status: EngineStatus { statistics.status }

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
