/// Which KV-cache slot each request runs on: the engine's prefix cache, as a state machine
/// without model or threads (the engine owns the caches; this decides which one).
///
/// A request takes the idle slot whose cached tokens share the longest prefix with its prompt,
/// so a conversation's follow-up finds its earlier turns still cached and only its new tokens
/// are evaluated. A conversation that shares little with every idle slot gets a fresh slot (up
/// to `capacity`) instead of evicting another conversation's cache; when every slot is busy,
/// requests wait. A request whose prompt continues the prompt a busy slot is preparing (a
/// prewarmed prefix) waits for that slot.
struct SlotTable {
    struct Slot {
        /// The tokens the slot's cache holds (while busy: as of when it was lent).
        var tokens: [Int] = []
        var isBusy = false
        /// The prompt the slot is working on while busy.
        var pending: [Int] = []
        var lastUse = 0
    }

    /// A slot chosen for a prompt.
    struct Lease: Equatable {
        let slot: Int
        /// Prompt tokens the slot's cache already holds.
        let sharedPrefix: Int
        /// Whether the slot is new (its cache must be created).
        let isNew: Bool
    }

    let capacity: Int
    private(set) var slots: [Slot] = []
    private var clock = 0

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Whether a slot's cache already holds `prompt` (all but possibly its last token, which an
    /// evaluation keeps to read with the next step).
    func holds(_ prompt: [Int]) -> Bool {
        slots.contains { Self.sharedPrefix($0.tokens, prompt) >= prompt.count - 1 }
    }

    /// Lends the best slot for `prompt`, or nil when it must wait.
    mutating func lend(for prompt: [Int]) -> Lease? {
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
        let lease: Lease
        if let best, best.shared * 2 >= slots[best.id].tokens.count {
            lease = Lease(slot: best.id, sharedPrefix: best.shared, isNew: false)
        } else if slots.count < capacity {
            slots.append(Slot())
            lease = Lease(slot: slots.count - 1, sharedPrefix: 0, isNew: true)
        } else if let best {
            lease = Lease(slot: best.id, sharedPrefix: best.shared, isNew: false)
        } else {
            return nil
        }
        slots[lease.slot].isBusy = true
        slots[lease.slot].pending = prompt
        slots[lease.slot].lastUse = clock
        return lease
    }

    /// Takes a slot back; its cache now holds `tokens`.
    mutating func release(_ slot: Int, cachedTokens tokens: [Int]) {
        slots[slot].tokens = tokens
        slots[slot].isBusy = false
        slots[slot].pending = []
    }

    static func sharedPrefix(_ a: [Int], _ b: [Int]) -> Int {
        var count = 0
        let limit = min(a.count, b.count)
        while count < limit && a[count] == b[count] { count += 1 }
        return count
    }
}
