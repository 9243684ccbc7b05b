import Foundation

/// Token texts as stored in the GGUF (byte-level alphabet for ordinary tokens, plain text for
/// control and user-defined ones), with an open-addressing index from text to id.
struct Vocabulary: Sendable {
    /// All token texts, concatenated.
    let blob: [UInt8]
    /// Token `i`'s text is `blob[offsets[i]..<offsets[i + 1]]`.
    let offsets: [Int32]
    /// Token id per slot, -1 when empty. Power-of-two size, at most half full.
    private let slots: [Int32]

    var count: Int { offsets.count - 1 }

    init(tokens: [String]) {
        var blob: [UInt8] = []
        blob.reserveCapacity(tokens.count * 8)
        var offsets: [Int32] = [0]
        offsets.reserveCapacity(tokens.count + 1)
        for token in tokens {
            var token = token
            token.withUTF8 { blob.append(contentsOf: $0) }
            offsets.append(Int32(blob.count))
        }
        self.blob = blob
        self.offsets = offsets

        var size = 16
        while size < tokens.count * 2 { size <<= 1 }
        var slots = [Int32](repeating: -1, count: size)
        let mask = size - 1
        blob.withUnsafeBufferPointer { b in
            for id in 0..<tokens.count {
                let start = Int(offsets[id])
                let text = UnsafeBufferPointer(rebasing: b[start..<Int(offsets[id + 1])])
                var slot = Int(truncatingIfNeeded: Self.hash(text)) & mask
                while slots[slot] >= 0 {
                    let other = Int(slots[slot])
                    if Self.equal(b, other, offsets, text) { break }  // duplicate text: the last id wins, as in llama.cpp
                    slot = (slot + 1) & mask
                }
                slots[slot] = Int32(id)
            }
        }
        self.slots = slots
    }

    /// The id whose text is exactly `text`.
    func id(for text: UnsafeBufferPointer<UInt8>) -> Int? {
        let mask = slots.count - 1
        return blob.withUnsafeBufferPointer { b in
            slots.withUnsafeBufferPointer { s in
                var slot = Int(truncatingIfNeeded: Self.hash(text)) & mask
                while s[slot] >= 0 {
                    if Self.equal(b, Int(s[slot]), offsets, text) { return Int(s[slot]) }
                    slot = (slot + 1) & mask
                }
                return nil
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
    private static func equal(
        _ blob: UnsafeBufferPointer<UInt8>, _ id: Int, _ offsets: [Int32], _ text: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        let start = Int(offsets[id])
        let length = Int(offsets[id + 1]) - start
        guard length == text.count else { return false }
        guard length > 0 else { return true }
        return memcmp(blob.baseAddress! + start, text.baseAddress!, length) == 0
    }

    /// FNV-1a, 64-bit.
    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3
        }
        return h ^ (h >> 29)
    }
}

/// BPE merge rules keyed by the pair of token ids: `(left, right) → (rank, merged id)`.
/// Open addressing over `UInt64` keys, so the encoder merges without building strings.
struct MergeTable: Sendable {
    static let missing = UInt64.max
    private(set) var keys: [UInt64]
    /// `rank << 32 | merged id`.
    private(set) var values: [UInt64]
    private(set) var count = 0

    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        keys = [UInt64](repeating: Self.missing, count: size)
        values = [UInt64](repeating: Self.missing, count: size)
    }

    @inline(__always)
    static func key(_ left: Int32, _ right: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: left)) << 32 | UInt64(UInt32(bitPattern: right))
    }

    @inline(__always)
    static func slot(for key: UInt64, mask: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// Adds a rule unless the pair already has one (the earlier, lower rank wins).
    mutating func insert(left: Int32, right: Int32, rank: Int, merged: Int32) {
        let key = Self.key(left, right)
        let mask = keys.count - 1
        var slot = Self.slot(for: key, mask: mask)
        while keys[slot] != Self.missing {
            if keys[slot] == key { return }
            slot = (slot + 1) & mask
        }
        keys[slot] = key
        values[slot] = UInt64(rank) << 32 | UInt64(UInt32(bitPattern: merged))
        count += 1
    }
}
