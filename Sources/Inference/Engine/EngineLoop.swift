/// The state of a ``GenerationEngine`` and what it does in one step: owned by the engine's
/// thread, touched by nothing else.
// @unchecked Sendable: created by the engine, then used only from the engine's executor thread
// (commands reach it through the engine's inbox).
final class EngineLoop: @unchecked Sendable {
    enum Command: Sendable {
        case submit(GenerationRequest, RequestCore)
        /// Look at the flags again (a request was cancelled).
        case wake
        /// Read the loop's state on its thread.
        case inspect(@Sendable (EngineLoop) -> Void)
    }

    /// Prompt tokens evaluated per forward step of one request.
    static let prefillChunk = Evaluator.prefillChunk

    private let model: Model
    private let contextLength: Int
    private let threadCount: Int?
    private var table: SlotTable
    private var evaluators: [Evaluator] = []
    private var waiting: [(request: GenerationRequest, core: RequestCore)] = []
    private var running: [Sequence] = []
    private let clock = ContinuousClock()

    init(model: Model, contextLength: Int, threadCount: Int?, slots: Int) {
        self.model = model
        self.contextLength = contextLength
        self.threadCount = threadCount
        table = SlotTable(capacity: slots)
    }

    /// Whether a step would do anything.
    var hasWork: Bool { !running.isEmpty || !waiting.isEmpty }

    /// The tokens each slot's cache holds.
    var cachedPrompts: [[Int]] { evaluators.map(\.cachedTokens) }

    func apply(_ command: Command) {
        switch command {
        case .submit(let request, let core): waiting.append((request, core))
        case .wake: break
        case .inspect(let body): body(self)
        }
    }

    /// Admits what can start, then moves every running request on by one forward step.
    func step() {
        admit()
        for sequence in running {
            advance(sequence)
        }
        running.removeAll { $0.isDone }
    }

    // MARK: Admission

    private func admit() {
        var stillWaiting: [(request: GenerationRequest, core: RequestCore)] = []
        for (request, core) in waiting {
            if core.isCancelled {
                finishUnstarted(core, reason: .cancelled, prompt: request.prompt)
                continue
            }
            if let error = Self.check(request.prompt, contextLength: contextLength) {
                core.continuation.finish(throwing: error)
                core.complete(nil)
                continue
            }
            if request.readsPromptOnly, table.holds(request.prompt) {
                finishUnstarted(core, reason: .maxTokens, prompt: request.prompt)
                continue
            }
            guard let lease = table.lend(for: request.prompt) else {
                stillWaiting.append((request, core))
                continue
            }
            if lease.isNew {
                evaluators.append(Evaluator(model: model, contextLength: contextLength, threadCount: threadCount))
            }
            running.append(start(request, core: core, slot: lease.slot))
        }
        waiting = stillWaiting
    }

    private static func check(_ prompt: [Int], contextLength: Int) -> InferenceError? {
        if prompt.isEmpty { return .emptyInput }
        if prompt.count > contextLength { return .promptTooLong(tokens: prompt.count, contextLength: contextLength) }
        return nil
    }

    private func start(_ request: GenerationRequest, core: RequestCore, slot: Int) -> Sequence {
        let evaluator = evaluators[slot]
        let prompt = request.prompt
        let decoder = SequenceDecoder(
            prompt: prompt, options: request.options, constraint: request.constraint, tokenizer: model.tokenizer,
            vocabularySize: model.config.vocabularySize)
        let sequence = Sequence(
            request: request, core: core, slot: slot, evaluator: evaluator, decoder: decoder, admitted: clock.now)
        if evaluator.holdsCurrent(prompt) {
            sequence.reused = prompt.count
        } else {
            // The last prompt token is always evaluated, so that its logits are there.
            let common = min(SlotTable.sharedPrefix(evaluator.cachedTokens, prompt), prompt.count - 1)
            evaluator.truncate(to: common)
            sequence.reused = common
        }
        sequence.promptLeft = prompt[sequence.reused...]
        return sequence
    }

    // MARK: Steps

    private func advance(_ sequence: Sequence) {
        let core = sequence.core
        if core.isCancelled {
            finish(sequence, reason: .cancelled)
            return
        }
        do {
            let logits: UnsafeMutableBufferPointer<Float>
            if !sequence.promptLeft.isEmpty || !sequence.hasReadPrompt {
                let chunk = sequence.promptLeft.prefix(Self.prefillChunk)
                logits = chunk.isEmpty ? sequence.evaluator.logits : try sequence.evaluator.evaluate(Array(chunk))
                sequence.promptLeft = sequence.promptLeft.dropFirst(chunk.count)
                guard sequence.promptLeft.isEmpty else { return }
                sequence.hasReadPrompt = true
                sequence.prefillDuration = clock.now - sequence.admitted
                core.continuation.yield(
                    .promptProcessed(
                        tokens: sequence.request.prompt.count, reused: sequence.reused,
                        duration: sequence.prefillDuration))
                sequence.decodeStart = clock.now
                if sequence.request.readsPromptOnly {
                    finish(sequence, reason: .maxTokens)
                    return
                }
            } else {
                logits = try sequence.evaluator.evaluate(sequence.pending)
                sequence.forwardSteps += 1
            }
            let room = contextLength - sequence.evaluator.cachedTokens.count
            switch try sequence.decoder.next(
                logits: logits, room: room, isStopped: { core.isCancelled }, emit: { core.continuation.yield($0) })
            {
            case .evaluate(let tokens): sequence.pending = tokens
            case .stop(let reason): finish(sequence, reason: reason)
            }
        } catch {
            fail(sequence, error)
        }
    }

    private func finish(_ sequence: Sequence, reason: StopReason) {
        let tail = sequence.decoder.finish()
        if !tail.isEmpty { sequence.core.continuation.yield(.text(tail)) }
        let summary = GenerationSummary(
            reason: reason, promptTokens: sequence.request.prompt.count, reusedTokens: sequence.reused,
            generatedTokens: sequence.decoder.generatedCount,
            prefillDuration: sequence.prefillDuration,
            decodeDuration: sequence.decodeStart.map { clock.now - $0 } ?? .zero,
            forwardSteps: sequence.forwardSteps)
        sequence.core.continuation.yield(.finished(summary))
        sequence.core.continuation.finish()
        release(sequence)
        sequence.core.complete(summary)
    }

    private func fail(_ sequence: Sequence, _ error: any Error) {
        sequence.core.continuation.finish(throwing: error)
        release(sequence)
        sequence.core.complete(nil)
    }

    private func release(_ sequence: Sequence) {
        sequence.isDone = true
        table.release(sequence.slot, cachedTokens: sequence.evaluator.cachedTokens)
    }

    /// A request that ends before it takes a slot.
    private func finishUnstarted(_ core: RequestCore, reason: StopReason, prompt: [Int]) {
        let summary = GenerationSummary(
            reason: reason, promptTokens: prompt.count, reusedTokens: reason == .cancelled ? 0 : prompt.count,
            generatedTokens: 0, prefillDuration: .zero, decodeDuration: .zero)
        core.continuation.yield(.finished(summary))
        core.continuation.finish()
        core.complete(summary)
    }
}

/// One admitted request on its slot.
private final class Sequence {
    let request: GenerationRequest
    let core: RequestCore
    let slot: Int
    let evaluator: Evaluator
    var decoder: SequenceDecoder
    let admitted: ContinuousClock.Instant
    /// Prompt tokens not evaluated yet.
    var promptLeft: ArraySlice<Int> = []
    var hasReadPrompt = false
    /// Tokens chosen by the decoder, to evaluate in the next step.
    var pending: [Int] = []
    var reused = 0
    var prefillDuration: Duration = .zero
    var decodeStart: ContinuousClock.Instant?
    var forwardSteps = 0
    var isDone = false

    init(
        request: GenerationRequest, core: RequestCore, slot: Int, evaluator: Evaluator, decoder: SequenceDecoder,
        admitted: ContinuousClock.Instant
    ) {
        self.request = request
        self.core = core
        self.slot = slot
        self.evaluator = evaluator
        self.decoder = decoder
        self.admitted = admitted
    }
}
