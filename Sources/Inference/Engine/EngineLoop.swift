import Kernels

/// The state of a ``GenerationEngine`` and what it does in one step: owned by the engine's
/// thread, touched by nothing else.
///
/// Each step is one forward pass for every request at once: those generating add the token
/// they chose last step (and, when few are generating, a draft to verify), those reading their
/// prompt add a chunk of it, the scheduler (``BatchScheduler``) deciding who runs and how much.
/// Then each request decides its next token from its own logits.
// @unchecked Sendable: created by the engine, then used only from the engine's executor thread
// (commands reach it through the engine's inbox).
final class EngineLoop: @unchecked Sendable {
    enum Command: Sendable {
        case submit(GenerationRequest, RequestCore)
        /// Requests with this staleness key so far are no longer wanted.
        case markStale(String)
        /// Look at the flags again (a request was cancelled).
        case wake
        /// Read the loop's state on its thread.
        case inspect(@Sendable (EngineLoop) -> Void)
    }

    struct Configuration: Equatable {
        var limits: BatchScheduler.Limits
        /// Whether generating requests get drafts copied from their own tokens to verify.
        var speculates = true
    }

    /// Logit rows of one step at most (each a vocabulary of floats: 600 KB for Qwen).
    static let logitCapacity = 64

    private let model: Model
    private let contextLength: Int
    private let configuration: Configuration
    private let pass: ForwardPass
    private var scheduler: BatchScheduler
    private var slots: [KVSlot] = []
    private var queued: [Int: (request: GenerationRequest, core: RequestCore)] = [:]
    private var running: [Int: Sequence] = [:]
    private var nextID = 0
    private let lookup = PromptLookup()
    private let clock = ContinuousClock()
    let statistics: EngineStatistics

    init(
        model: Model, contextLength: Int, threadCount: Int?, configuration: Configuration,
        statistics: EngineStatistics
    ) {
        self.model = model
        self.contextLength = contextLength
        self.configuration = configuration
        self.statistics = statistics
        let limits = configuration.limits
        pass = ForwardPass(
            model: model, rowCapacity: limits.rowBudget, logitCapacity: min(limits.rowBudget, Self.logitCapacity),
            contextLength: contextLength, pool: ForwardPass.pool(threadCount: threadCount))
        scheduler = BatchScheduler(limits: limits)
    }

    /// Whether a step would do anything.
    var hasWork: Bool { !running.isEmpty || !queued.isEmpty }

    /// The tokens each slot's cache holds.
    var cachedPrompts: [[Int]] { slots.map(\.tokens) }

    func apply(_ command: Command) {
        switch command {
        case .submit(let request, let core):
            nextID += 1
            if let error = Self.check(
                request.prompt, contextLength: contextLength, vocabularySize: model.weights.tokenEmbedding.rows)
            {
                core.continuation.finish(throwing: error)
                core.complete(nil)
                return
            }
            queued[nextID] = (request, core)
            if EngineTrace.isOn {
                EngineTrace.write(
                    "submit \(nextID) \(request.priority) prompt \(request.prompt.count) queued \(queued.count) running \(running.count)"
                )
            }
            perform(
                scheduler.submit(
                    BatchScheduler.Ticket(
                        id: nextID, priority: request.priority, user: request.user ?? "",
                        stalenessKey: request.stalenessKey, prompt: request.prompt,
                        readsPromptOnly: request.readsPromptOnly)))
        case .markStale(let key):
            perform(scheduler.markStale(key: key))
        case .wake:
            break
        case .inspect(let body):
            body(self)
        }
    }

    private static func check(_ prompt: [Int], contextLength: Int, vocabularySize: Int) -> InferenceError? {
        if prompt.isEmpty { return .emptyInput }
        if prompt.count > contextLength { return .promptTooLong(tokens: prompt.count, contextLength: contextLength) }
        if let bad = prompt.firstIndex(where: { $0 < 0 || $0 >= vocabularySize }) {
            return .invalidToken(prompt[bad], position: bad, vocabularySize: vocabularySize)
        }
        return nil
    }

    private func perform(_ actions: [BatchScheduler.Action]) {
        for action in actions {
            switch action {
            case .start(let id, let slot, let shared, let isNew):
                guard let (request, core) = queued.removeValue(forKey: id) else { continue }
                if isNew { slots.append(KVSlot(model: model, contextLength: contextLength)) }
                start(id, request, core: core, slot: slot, shared: shared)
            case .drop(let id, let reason):
                guard let (request, core) = queued.removeValue(forKey: id) else { continue }
                finishUnstarted(core, reason: reason == .stale ? .cancelled : .maxTokens, prompt: request.prompt)
            case .stop(let id):
                if let sequence = running[id] { finish(sequence, reason: .cancelled) }
            }
        }
    }

    // MARK: Steps

    /// Drops what was cancelled, starts what can start, and runs one forward pass for every
    /// running request.
    func step() {
        for (id, entry) in queued where entry.core.isCancelled {
            queued[id] = nil
            scheduler.withdraw(id)
            finishUnstarted(entry.core, reason: .cancelled, prompt: entry.request.prompt)
        }
        for sequence in running.values where sequence.core.isCancelled {
            finish(sequence, reason: .cancelled)
        }
        perform(scheduler.admit())
        guard !running.isEmpty else {
            statistics.record(queued: queued.count, running: 0)
            return
        }

        // Background requests sit out while a person's or a suggestion runs (`BatchScheduler`).
        let ordered = running.values.filter { !scheduler.paused.contains($0.id) }.sorted { $0.id < $1.id }
        let decoding = ordered.filter { $0.isDecoding }
        let draftLimit = configuration.speculates ? scheduler.draftLimit(decoding: decoding.count) : 0
        var batch = Batch(rowCapacity: pass.rowCapacity, logitCapacity: pass.logitCapacity)
        for sequence in decoding {
            let slot = slots[sequence.slot]
            let pending = sequence.pending
            if pending.count > batch.rowsLeft - 1 {
                // A long run of forced tokens: its start now, without logits; the rest next step.
                let count = min(pending.count - 1, batch.rowsLeft)
                guard count > 0 else { continue }
                batch.add(
                    .forced(sequence, Array(pending[..<count])), cache: slot.cache, start: slot.tokens.count,
                    logits: .none)
                continue
            }
            guard batch.logitsLeft > 0 else { continue }
            var evaluated = pending
            let room = contextLength - slot.tokens.count - pending.count
            let limit = min(
                draftLimit, sequence.drafts.length, room, sequence.remainingTokens - 1, batch.rowsLeft - pending.count,
                batch.logitsLeft - 1)
            let fitted = Self.draftFitting(limit, rowsBefore: batch.tokens.count + pending.count)
            if fitted > 0, sequence.drafts.isDrafting {
                evaluated += lookup.draft(after: slot.tokens + pending, limit: fitted)
            }
            let drafted = evaluated.count > pending.count
            batch.add(
                .decoding(sequence, evaluated, chosen: pending.count), cache: slot.cache, start: slot.tokens.count,
                logits: drafted ? .all : .last)
        }
        let reading = ordered.filter { !$0.isDecoding }
        for sequence in reading { takeSharedPrefix(for: sequence) }
        let plan = scheduler.prefillRows(
            reading: reading.map { BatchScheduler.Reading(id: $0.id, position: slots[$0.slot].tokens.count) },
            decodeRows: batch.tokens.count, decoding: decoding.count)
        for sequence in reading {
            guard var count = plan[sequence.id] else { continue }
            let slot = slots[sequence.slot]
            let position = slot.tokens.count
            count = min(count, batch.rowsLeft)
            let isLast = position + count == sequence.request.prompt.count
            guard count > 0, !isLast || batch.logitsLeft > 0 else { continue }
            let chunk = Array(sequence.request.prompt[position..<(position + count)])
            batch.add(.reading(sequence, chunk), cache: slot.cache, start: position, logits: isLast ? .last : .none)
        }
        guard !batch.tokens.isEmpty else {
            statistics.record(queued: queued.count, running: running.count)
            return
        }

        let started = clock.now
        batch.tokens.withUnsafeBufferPointer { pass.run($0, batch.segments) }
        var logitRow = 0
        var generated = 0
        for (index, member) in batch.members.enumerated() {
            let segment = batch.segments[index]
            let first = logitRow
            logitRow += segment.logits == .all ? segment.count : segment.logits == .last ? 1 : 0
            switch member {
            case .reading(let sequence, let chunk):
                let before = sequence.decoder.generatedCount
                afterReading(sequence, chunk: chunk, logits: segment.logits == .none ? nil : pass.logits(first))
                generated += sequence.decoder.generatedCount - before
            case .forced(let sequence, let tokens):
                slots[sequence.slot].tokens += tokens
                sequence.pending.removeFirst(tokens.count)
            case .decoding(let sequence, let evaluated, let chosen):
                let before = sequence.decoder.generatedCount
                afterDecoding(sequence, evaluated: evaluated, chosen: chosen, firstLogitRow: first)
                generated += sequence.decoder.generatedCount - before
            }
        }
        let duration = clock.now - started
        if EngineTrace.isOn {
            EngineTrace.write(
                "step rows \(batch.tokens.count) members \(batch.members.count) decoding \(decoding.count) took \(duration)"
            )
        }
        statistics.record(
            step: duration, rows: batch.tokens.count, sequences: batch.members.count, generated: generated,
            queued: queued.count, running: running.count)
    }

    /// The longest draft of at most `limit` tokens that brings the step's rows (`rowsBefore`
    /// without it) to a power of two no larger than `MatMul.streamingRows`.
    ///
    /// A decode step's products run the weights against tiles of 4, then 2, then 1 row, reading
    /// every weight once per tile: 4 rows cost about what 3 do, and 5 cost a pass more (1.5B,
    /// Zen 3, avx2, ~1,200 positions: 1, 2, 3, 4, 5, 7, 9, 17 rows 43, 48, 68, 73, 93, 116, 175,
    /// 274 ms). Past `streamingRows` the rows cost compute in proportion, and a longer draft
    /// gains nothing when it is confirmed and loses more when it is not.
    static func draftFitting(_ limit: Int, rowsBefore rows: Int) -> Int {
        guard limit > 0 else { return 0 }
        var fitted = 1
        while fitted * 2 <= min(rows + limit, MatMul.streamingRows) { fitted *= 2 }
        return max(fitted - rows, 0)
    }

    /// Takes the KV rows of a prompt's start from another slot that holds them, rather than
    /// evaluating them again (instructions and examples many requests share).
    private func takeSharedPrefix(for sequence: Sequence) {
        let slot = slots[sequence.slot]
        let prompt = sequence.request.prompt
        let position = slot.tokens.count
        var best: (slot: KVSlot, shared: Int)?
        for other in slots where other !== slot {
            let shared = min(SlotTable.sharedPrefix(other.tokens, prompt), prompt.count - 1)
            if shared > position, shared > best?.shared ?? 0 { best = (other, shared) }
        }
        guard let best else { return }
        slot.cache.copy(from: best.slot.cache, positions: position..<best.shared)
        slot.tokens += prompt[position..<best.shared]
        sequence.reused = max(sequence.reused, best.shared)
    }

    private func afterReading(_ sequence: Sequence, chunk: [Int], logits: UnsafeMutableBufferPointer<Float>?) {
        let slot = slots[sequence.slot]
        slot.tokens += chunk
        guard let logits else { return }
        let core = sequence.core
        sequence.prefillDuration = clock.now - sequence.admitted
        core.continuation.yield(
            .promptProcessed(
                tokens: sequence.request.prompt.count, reused: sequence.reused, duration: sequence.prefillDuration))
        sequence.decodeStart = clock.now
        if sequence.request.readsPromptOnly {
            finish(sequence, reason: .maxTokens)
            return
        }
        decide(sequence) {
            try sequence.decoder.next(
                logits: logits, room: contextLength - slot.tokens.count, isStopped: { core.isCancelled },
                emit: { core.continuation.yield($0) })
        }
    }

    private func afterDecoding(_ sequence: Sequence, evaluated: [Int], chosen: Int, firstLogitRow: Int) {
        let slot = slots[sequence.slot]
        let base = slot.tokens.count
        let core = sequence.core
        sequence.forwardSteps += 1
        if evaluated.count == chosen {
            sequence.drafts.stepWithoutDraft()
            slot.tokens += evaluated
            decide(sequence) {
                try sequence.decoder.next(
                    logits: pass.logits(firstLogitRow), room: contextLength - slot.tokens.count,
                    isStopped: { core.isCancelled }, emit: { core.continuation.yield($0) })
            }
            return
        }
        sequence.draftedTokens += evaluated.count - chosen
        decide(sequence) {
            let (kept, next) = try sequence.decoder.verify(
                evaluated, chosen: chosen, logits: { pass.logits(firstLogitRow + $0) },
                room: { contextLength - base - $0 - 1 }, isStopped: { core.isCancelled },
                emit: { core.continuation.yield($0) })
            // The cache keeps the confirmed rows; the rest are written over later.
            slot.tokens += evaluated[..<kept]
            sequence.acceptedDraftTokens += kept - chosen
            sequence.drafts.verified(drafted: evaluated.count - chosen, accepted: kept - chosen)
            return next
        }
    }

    /// Applies a decoder's decision: the tokens to evaluate next step, or the end.
    private func decide(_ sequence: Sequence, _ body: () throws -> SequenceDecoder.Next) {
        do {
            switch try body() {
            case .evaluate(let tokens): sequence.pending = tokens
            case .stop(let reason): finish(sequence, reason: reason)
            }
        } catch {
            fail(sequence, error)
        }
    }

    // MARK: Admission and the end

    private func start(_ id: Int, _ request: GenerationRequest, core: RequestCore, slot index: Int, shared: Int) {
        let slot = slots[index]
        // The last prompt token is always evaluated, so that its logits are there.
        let common = min(shared, request.prompt.count - 1)
        slot.tokens.removeSubrange(common...)
        let decoder = SequenceDecoder(
            prompt: request.prompt, options: request.options, constraint: request.constraint,
            tokenizer: model.tokenizer, vocabularySize: model.config.vocabularySize)
        let sequence = Sequence(
            id: id, request: request, core: core, slot: index, decoder: decoder, admitted: clock.now)
        sequence.reused = common
        running[id] = sequence
    }

    private func finish(_ sequence: Sequence, reason: StopReason) {
        let tail = sequence.decoder.finish()
        if !tail.isEmpty { sequence.core.continuation.yield(.text(tail)) }
        let summary = GenerationSummary(
            reason: reason, promptTokens: sequence.request.prompt.count, reusedTokens: sequence.reused,
            generatedTokens: sequence.decoder.generatedCount, prefillDuration: sequence.prefillDuration,
            decodeDuration: sequence.decodeStart.map { clock.now - $0 } ?? .zero, forwardSteps: sequence.forwardSteps,
            draftedTokens: sequence.draftedTokens, acceptedDraftTokens: sequence.acceptedDraftTokens)
        sequence.core.continuation.yield(.finished(summary))
        sequence.core.continuation.finish()
        if EngineTrace.isOn {
            EngineTrace.write(
                "request \(sequence.id) prompt \(summary.promptTokens) reused \(summary.reusedTokens) generated \(summary.generatedTokens) steps \(summary.forwardSteps) drafted \(summary.draftedTokens) accepted \(summary.acceptedDraftTokens) prefill \(summary.prefillDuration) decode \(summary.decodeDuration) slot \(sequence.slot) reason \(reason)"
            )
        }
        release(sequence)
        sequence.core.complete(summary)
    }

    private func fail(_ sequence: Sequence, _ error: any Error) {
        sequence.core.continuation.finish(throwing: error)
        release(sequence)
        sequence.core.complete(nil)
    }

    private func release(_ sequence: Sequence) {
        running[sequence.id] = nil
        scheduler.finish(sequence.id, cachedTokens: slots[sequence.slot].tokens)
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

/// What one forward step runs: the rows, their segments, and whose they are.
private struct Batch {
    enum Member {
        /// A chunk of a prompt.
        case reading(Sequence, [Int])
        /// The first of many forced tokens, evaluated ahead of the rest.
        case forced(Sequence, [Int])
        /// The tokens chosen last step (`chosen` of them), then a draft, if any.
        case decoding(Sequence, [Int], chosen: Int)
    }

    let rowCapacity: Int
    let logitCapacity: Int
    var tokens: [Int] = []
    var segments: [ForwardSegment] = []
    var members: [Member] = []
    private var logitRows = 0

    init(rowCapacity: Int, logitCapacity: Int) {
        self.rowCapacity = rowCapacity
        self.logitCapacity = logitCapacity
    }

    var rowsLeft: Int { rowCapacity - tokens.count }
    var logitsLeft: Int { logitCapacity - logitRows }

    mutating func add(_ member: Member, cache: KVCache, start: Int, logits: LogitRows) {
        let rows: [Int]
        switch member {
        case .reading(_, let chunk), .forced(_, let chunk), .decoding(_, let chunk, _): rows = chunk
        }
        segments.append(
            ForwardSegment(cache: cache, start: start, row: tokens.count, count: rows.count, logits: logits))
        logitRows += logits == .all ? rows.count : logits == .last ? 1 : 0
        tokens += rows
        members.append(member)
    }
}

/// A KV cache and the tokens it holds.
final class KVSlot {
    let cache: KVCache
    var tokens: [Int] = []

    init(model: Model, contextLength: Int) {
        let config = model.config
        cache = KVCache(
            layerCount: config.blockCount, headCount: config.headCountKV, headDimension: config.headDimension,
            capacity: contextLength)
    }
}

/// One admitted request on its slot.
private final class Sequence {
    let id: Int
    let request: GenerationRequest
    let core: RequestCore
    let slot: Int
    var decoder: SequenceDecoder
    let admitted: ContinuousClock.Instant
    /// Tokens chosen by the decoder, to evaluate in the next step (empty while reading the prompt).
    var pending: [Int] = []
    var reused = 0
    var prefillDuration: Duration = .zero
    var decodeStart: ContinuousClock.Instant?
    var forwardSteps = 0
    var draftedTokens = 0
    var acceptedDraftTokens = 0
    var drafts = DraftLength()

    init(
        id: Int, request: GenerationRequest, core: RequestCore, slot: Int, decoder: SequenceDecoder,
        admitted: ContinuousClock.Instant
    ) {
        self.id = id
        self.request = request
        self.core = core
        self.slot = slot
        self.decoder = decoder
        self.admitted = admitted
    }

    /// Whether the prompt is read and the request is generating.
    var isDecoding: Bool { !pending.isEmpty }

    /// Tokens it may still generate.
    var remainingTokens: Int { request.options.maxTokens - decoder.generatedCount }
}
