import FoundationModels
import Inference

/// The KV caches of one backend: a few inference sessions ("slots"), each holding the tokens of
/// the last conversation it served.
///
/// A request takes the idle slot whose cached tokens share the longest prefix with its prompt,
/// so a session's follow-up finds its earlier turns still cached and only its new tokens are
/// prefilled. A conversation that shares little with every idle slot gets a fresh slot (up to
/// `capacity`) instead of evicting another conversation's cache; when all slots are busy,
/// requests wait their turn. A request whose prompt continues the prompt a busy slot is
/// preparing (a prewarmed prefix) waits for that slot.
actor SlotPool {
    /// A slot lent to one request.
    struct Lease: Sendable {
        let id: Int
        let session: InferenceSession
        /// Prompt tokens the slot's cache already holds.
        let sharedPrefix: Int
    }

    private struct Slot {
        let session: InferenceSession
        var tokens: [Int] = []
        var isBusy = false
        /// The prompt the slot is working on while busy.
        var pending: [Int] = []
        var lastUse = 0
    }

    private let model: Model
    private let contextLength: Int
    private let capacity: Int
    private var slots: [Slot] = []
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var clock = 0

    init(model: Model, contextLength: Int, capacity: Int) {
        precondition(capacity > 0)
        self.model = model
        self.contextLength = contextLength
        self.capacity = capacity
    }

    /// Lends the best slot for `prompt`, waiting while every slot is busy.
    func acquire(for prompt: [Int]) async -> Lease {
        while true {
            if let lease = lend(for: prompt) { return lease }
            await withCheckedContinuation { waiters.append($0) }
        }
    }

    /// Takes a slot back; its cache now holds `tokens`.
    func release(_ lease: Lease, cachedTokens tokens: [Int]) {
        slots[lease.id].tokens = tokens
        slots[lease.id].isBusy = false
        slots[lease.id].pending = []
        // Every waiter looks again: the freed slot suits one of them best.
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume() }
    }

    /// The tokens each slot's cache holds (for tests).
    var cachedTokens: [[Int]] { slots.map(\.tokens) }

    /// Whether a slot's cache already holds `prompt` (all but possibly its last token, which
    /// an evaluation keeps to read with the next step).
    func holds(_ prompt: [Int]) -> Bool {
        slots.contains { Self.sharedPrefix($0.tokens, prompt) >= prompt.count - 1 }
    }

    /// As `acquire`, for reading `prompt` ahead: nil once a slot holds it, checked again after
    /// every wait (prewarms queued together must not lease the warm slot one of them filled).
    func acquireUnlessHeld(_ prompt: [Int]) async -> Lease? {
        while true {
            if holds(prompt) { return nil }
            if let lease = lend(for: prompt) { return lease }
            await withCheckedContinuation { waiters.append($0) }
        }
    }

    private func lend(for prompt: [Int]) -> Lease? {
        clock += 1
        var best: (id: Int, shared: Int)?
        for (id, slot) in slots.enumerated() where !slot.isBusy {
            let shared = Self.sharedPrefix(slot.tokens, prompt)
            if let current = best,
                shared < current.shared || (shared == current.shared && slot.lastUse > slots[current.id].lastUse)
            {
                continue
            }
            best = (id, shared)
        }
        let prepared = slots.lazy.filter { $0.isBusy && !$0.pending.isEmpty && prompt.starts(with: $0.pending) }
        if let prepared = prepared.map(\.pending.count).max(), prepared > best?.shared ?? 0 { return nil }
        // Reusing a slot that keeps less than half of its cache would evict another
        // conversation: take a fresh slot while there is room.
        let id: Int
        let shared: Int
        if let best, best.shared * 2 >= slots[best.id].tokens.count {
            (id, shared) = best
        } else if slots.count < capacity {
            slots.append(Slot(session: InferenceSession(model: model, contextLength: contextLength)))
            (id, shared) = (slots.count - 1, 0)
        } else if let best {
            (id, shared) = best
        } else {
            return nil
        }
        slots[id].isBusy = true
        slots[id].pending = prompt
        slots[id].lastUse = clock
        return Lease(id: id, session: slots[id].session, sharedPrefix: shared)
    }

    static func sharedPrefix(_ a: [Int], _ b: [Int]) -> Int {
        var count = 0
        let limit = min(a.count, b.count)
        while count < limit && a[count] == b[count] { count += 1 }
        return count
    }
}
