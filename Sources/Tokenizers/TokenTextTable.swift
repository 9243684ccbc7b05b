import Foundation

/// Token texts as stored in the GGUF (byte-level alphabet for ordinary tokens, plain text for
/// control and user-defined ones), with an open-addressing index from text to id.
struct TokenTextTable: Sendable {
    /// All token texts, concatenated.
    let blob: [UInt8]
    /// Token `i`'s text is `blob[offsets[i]..<offsets[i + 1]]`.
    let offsets: [Int32]
    /// `hash >> 32 << 32 | id` per slot, `empty` when free: the stored hash half rules out
    /// most probes without touching the texts. Power-of-two size, at most half full.
    private let slots: [UInt64]
    private static let empty = UInt64.max

    var count: Int { offsets.count - 1 }

    init(tokens: [String]) {
        var blob: [UInt8] = []
        blob.reserveCapacity(tokens.count * 8)
        var offsets: [Int32] = [0]
        offsets.reserveCapacity(tokens.count + 1)
        for var token in tokens {
            token.withUTF8 { blob.append(contentsOf: $0) }
            offsets.append(Int32(blob.count))
        }
        self.blob = blob
        self.offsets = offsets

        var size = 16
        while size < tokens.count * 2 { size <<= 1 }
        var slots = [UInt64](repeating: Self.empty, count: size)
        let mask = size - 1
        blob.withUnsafeBufferPointer { b in
            offsets.withUnsafeBufferPointer { o in
                for id in 0..<tokens.count {
                    let text = UnsafeBufferPointer(rebasing: b[Int(o[id])..<Int(o[id + 1])])
                    let hash = Self.hash(text)
                    var slot = Int(truncatingIfNeeded: hash) & mask
                    while slots[slot] != Self.empty {
                        // A duplicate text: the last id wins, as in llama.cpp.
                        if Self.matches(slots[slot], hash, b, o, text) { break }
                        slot = (slot + 1) & mask
                    }
                    slots[slot] = (hash & 0xFFFF_FFFF_0000_0000) | UInt64(id)
                }
            }
        }
        self.slots = slots
    }

    /// The id whose text is exactly `text`.
    func id(for text: UnsafeBufferPointer<UInt8>) -> Int? {
        let mask = slots.count - 1
        let hash = Self.hash(text)
        return blob.withUnsafeBufferPointer { b in
            offsets.withUnsafeBufferPointer { o in
                slots.withUnsafeBufferPointer { s in
                    var slot = Int(truncatingIfNeeded: hash) & mask
                    while s[slot] != Self.empty {
                        if Self.matches(s[slot], hash, b, o, text) { return Int(s[slot] & 0xFFFF_FFFF) }
                        slot = (slot + 1) & mask
                    }
                    return nil
                }
            }
        }
    }

    func id(for bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { id(for: $0) }
    }

    /// The text bytes of token `id`.
    func text(of id: Int) -> ArraySlice<UInt8> {
        blob[Int(offsets[id])..<Int(offsets[id + 1])]
    }

    @inline(__always)
    private static func matches(
        _ slot: UInt64, _ hash: UInt64, _ blob: UnsafeBufferPointer<UInt8>, _ offsets: UnsafeBufferPointer<Int32>,
        _ text: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard slot >> 32 == hash >> 32 else { return false }
        let id = Int(slot & 0xFFFF_FFFF)
        let start = Int(offsets[id])
        guard Int(offsets[id + 1]) - start == text.count else { return false }
        for i in 0..<text.count where blob[start + i] != text[i] { return false }
        return true
    }

    /// A multiplicative hash over 8-byte words; the length is mixed in.
    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard let base = bytes.baseAddress else { return 0x9E37_79B9_7F4A_7C15 }
        return WordCache.hash(base, bytes.count)
    }
}

/// BPE merge rules keyed by the pair of token ids: `(left, right) → (rank, merged id)`, so the
/// encoder merges without building strings.
///
/// Rules sit densely in rank order (`rules[2i]` the key, `rules[2i + 1]` the value); an
/// open-addressing index of 32-bit rule numbers points into them. The index is a quarter of
/// the size of a table of keys and values, which matters for load time: building it is one
/// cache miss per rule.
struct MergeTable: Sendable {
    static let missing = UInt64.max
    /// Key `left << 32 | right`, then value `rank << 32 | merged id`, per rule.
    private(set) var rules: [UInt64] = []
    /// Rule number + 1 per slot, 0 when empty. Power-of-two size, under a third full.
    private(set) var index: [UInt32]
    var count: Int { rules.count / 2 }

    init(capacity: Int) {
        var size = 16
        while size < capacity * 3 { size <<= 1 }
        index = [UInt32](repeating: 0, count: size)
        rules.reserveCapacity(capacity * 2)
    }

    @inline(__always)
    static func key(_ left: Int32, _ right: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: left)) << 32 | UInt64(UInt32(bitPattern: right))
    }

    @inline(__always)
    static func slot(for key: UInt64, mask: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// Adds rules (in rank order) unless their pair already has one (the earlier, lower rank
    /// wins). They are indexed in slot order, so the index is written front to back instead
    /// of at random: a stable counting sort on the slot's top bits.
    mutating func insert(_ new: [(left: Int32, right: Int32, rank: Int, merged: Int32)]) {
        let mask = index.count - 1
        let shift = max(0, mask.bitWidth - mask.leadingZeroBitCount - 8)
        var counts = [Int](repeating: 0, count: 257)
        for rule in new { counts[(Self.slot(for: Self.key(rule.left, rule.right), mask: mask) >> shift) + 1] += 1 }
        for b in 1..<257 { counts[b] += counts[b - 1] }
        var order = [Int32](repeating: 0, count: new.count)
        for (i, rule) in new.enumerated() {
            let b = Self.slot(for: Self.key(rule.left, rule.right), mask: mask) >> shift
            order[counts[b]] = Int32(i)
            counts[b] += 1
        }
        // Rule numbers must follow rank order, so reserve them first and index second.
        let base = count
        for rule in new {
            rules.append(Self.key(rule.left, rule.right))
            rules.append(UInt64(rule.rank) << 32 | UInt64(UInt32(bitPattern: rule.merged)))
        }
        for i in order {
            let key = rules[2 * (base + Int(i))]
            var slot = Self.slot(for: key, mask: mask)
            while index[slot] != 0 && rules[2 * Int(index[slot] - 1)] != key {
                slot = (slot + 1) & mask
            }
            // A pair seen before keeps its lower rank (the lower rule number); the later rule
            // stays in `rules`, unreachable.
            if index[slot] == 0 || Int(index[slot] - 1) > base + Int(i) { index[slot] = UInt32(base + Int(i) + 1) }
        }
    }

    /// `rank << 32 | merged id` for the pair, or `missing`. Pointers from `rules` and `index`.
    @inline(__always)
    static func lookup(
        _ left: Int32, _ right: Int32, rules: UnsafePointer<UInt64>, index: UnsafePointer<UInt32>, mask: Int
    ) -> UInt64 {
        let key = Self.key(left, right)
        var slot = Self.slot(for: key, mask: mask)
        while true {
            let i = Int(index[slot])
            if i == 0 { return missing }
            if rules[2 * (i - 1)] == key { return rules[2 * (i - 1) + 1] }
            slot = (slot + 1) & mask
        }
    }
}
