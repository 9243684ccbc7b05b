import Foundation

/// Remembers the ids of words already merged during one `encode` call: words repeat (Zipf),
/// and a hit skips the merge-table lookups, which miss the CPU caches on large vocabularies.
/// Bounded: cleared when it reaches `maxEntries`.
struct WordCache {
    private struct Entry {
        var hash: UInt64
        var bytesStart: Int32
        var bytesCount: Int32
        var idsStart: Int32
        var idsCount: Int32
    }

    static let maxEntries = 1 << 15
    static let maxWordLength = 256
    /// Grows with the entries (at most half full), so short texts stay cheap.
    private var slots = [Int32](repeating: -1, count: 1024)
    private var entries: [Entry] = []
    private var bytes: [UInt8] = []
    private var ids: [Int32] = []

    init() {
        entries.reserveCapacity(1024)
    }

    @inline(__always)
    static func hash(_ word: UnsafePointer<UInt8>, _ count: Int) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(count)
        var i = 0
        while i + 8 <= count {
            h = (h ^ UnsafeRawPointer(word + i).loadUnaligned(as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
            h ^= h >> 29
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < count {
            tail |= UInt64(word[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* 0x9E37_79B9_7F4A_7C15
        return h ^ (h >> 32)
    }

    /// Appends the cached ids of the word to `out` and returns `true`, or returns `false`.
    /// `slot` receives where to insert on a miss.
    @inline(__always)
    func lookup(
        _ word: UnsafePointer<UInt8>, _ count: Int, hash: UInt64, slot: inout Int, into out: inout [Int]
    ) -> Bool {
        let mask = slots.count - 1
        var s = Int(truncatingIfNeeded: hash) & mask
        while true {
            let index = Int(slots[s])
            if index < 0 {
                slot = s
                return false
            }
            let e = entries[index]
            if e.hash == hash && Int(e.bytesCount) == count
                && bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress! + Int(e.bytesStart), word, count) == 0 })
            {
                for i in Int(e.idsStart)..<Int(e.idsStart + e.idsCount) { out.append(Int(ids[i])) }
                return true
            }
            s = (s + 1) & mask
        }
    }

    /// Records the ids `out[idsFrom...]` for the word at the slot `lookup` returned.
    mutating func insert(
        _ word: UnsafePointer<UInt8>, _ count: Int, hash: UInt64, slot: Int, ids out: ArraySlice<Int>
    ) {
        var slot = slot
        if entries.count >= Self.maxEntries {
            clear()
            slot = freeSlot(hash)
        } else if (entries.count + 1) * 2 > slots.count {
            slots = [Int32](repeating: -1, count: slots.count * 2)
            for (index, e) in entries.enumerated() { slots[freeSlot(e.hash)] = Int32(index) }
            slot = freeSlot(hash)
        }
        slots[slot] = Int32(entries.count)
        entries.append(
            Entry(
                hash: hash, bytesStart: Int32(bytes.count), bytesCount: Int32(count), idsStart: Int32(ids.count),
                idsCount: Int32(out.count)))
        bytes.append(contentsOf: UnsafeBufferPointer(start: word, count: count))
        for id in out { ids.append(Int32(truncatingIfNeeded: id)) }
    }

    private func freeSlot(_ hash: UInt64) -> Int {
        let mask = slots.count - 1
        var s = Int(truncatingIfNeeded: hash) & mask
        while slots[s] >= 0 { s = (s + 1) & mask }
        return s
    }

    private mutating func clear() {
        for i in slots.indices { slots[i] = -1 }
        entries.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
        ids.removeAll(keepingCapacity: true)
    }
}
