import Foundation

/// Token byte strings in prefix trees, stored depth-first in one array (llguidance's layout): a
/// node's subtree is the run of nodes up to its `end`, so a byte the automaton rejects skips the
/// whole subtree in one step. Several tries (one per slice) live side by side in `nodes`.
struct TokenTrie: Sendable {
    struct Node: Sendable {
        /// Index just past this node's subtree.
        var end: UInt32
        /// The token whose last byte this node is, or -1.
        var token: Int32
        var byte: UInt8
        /// Bytes from the root: 1 for a root's children.
        var depth: UInt16
    }

    private(set) var nodes: [Node] = []
    /// Tokens with the same bytes as an earlier one: (token in the trie, the duplicate).
    private(set) var duplicates: [(Int32, Int32)] = []
    private(set) var maxDepth = 0
    /// All token bytes end to end while building; token `i` is `flat[offsets[i]..<offsets[i + 1]]`.
    private var flat: [UInt8]
    private var offsets: [Int]

    init(bytes: [[UInt8]]) {
        var offsets = [0]
        offsets.reserveCapacity(bytes.count + 1)
        for token in bytes { offsets.append(offsets[offsets.count - 1] + token.count) }
        var flat: [UInt8] = []
        flat.reserveCapacity(offsets[offsets.count - 1])
        for token in bytes { flat += token }
        self.flat = flat
        self.offsets = offsets
    }

    /// Appends a trie holding `tokens`; returns its node range.
    mutating func append(tokens: [Int32]) -> Range<Int> {
        let begin = nodes.count
        let sorted = sortedByBytes(tokens)
        var path: [Int] = []
        var previous = 0..<0
        for token in sorted {
            let text = offsets[Int(token)]..<offsets[Int(token) + 1]
            var common = 0
            let limit = min(text.count, previous.count)
            while common < limit && flat[text.lowerBound + common] == flat[previous.lowerBound + common] { common += 1 }
            while path.count > common { nodes[path.removeLast()].end = UInt32(nodes.count) }
            if common == text.count {
                // Same bytes as the previous token (sorting puts prefixes first).
                duplicates.append((nodes[path[path.count - 1]].token, token))
                continue
            }
            for index in common..<text.count {
                path.append(nodes.count)
                nodes.append(Node(end: 0, token: -1, byte: flat[text.lowerBound + index], depth: UInt16(index + 1)))
            }
            nodes[nodes.count - 1].token = token
            maxDepth = max(maxDepth, text.count)
            previous = text
        }
        while let index = path.popLast() { nodes[index].end = UInt32(nodes.count) }
        return begin..<nodes.count
    }

    /// Drops the copies of the token bytes kept for building (no `append` after this).
    mutating func finishBuilding() {
        flat = []
        offsets = []
    }

    /// `tokens` in lexicographic byte order (a prefix before its extensions). Most comparisons
    /// are settled by a key holding the first eight bytes.
    private func sortedByBytes(_ tokens: [Int32]) -> [Int32] {
        struct Keyed {
            var key: UInt64
            var token: Int32
        }
        return flat.withUnsafeBufferPointer { flat in
            offsets.withUnsafeBufferPointer { offsets in
                var keyed = tokens.map { token in
                    let start = offsets[Int(token)]
                    let count = offsets[Int(token) + 1] - start
                    var key: UInt64 = 0
                    for index in 0..<8 {
                        key = key << 8 | UInt64(index < count ? flat[start + index] : 0)
                    }
                    return Keyed(key: key, token: token)
                }
                keyed.sort { a, b in
                    if a.key != b.key { return a.key < b.key }
                    let aStart = offsets[Int(a.token)]
                    let bStart = offsets[Int(b.token)]
                    let aCount = offsets[Int(a.token) + 1] - aStart
                    let bCount = offsets[Int(b.token) + 1] - bStart
                    let order = memcmp(flat.baseAddress! + aStart, flat.baseAddress! + bStart, min(aCount, bCount))
                    return order != 0 ? order < 0 : aCount < bCount
                }
                return keyed.map(\.token)
            }
        }
    }

    /// Appends to `allowed` every token in `range`'s trie whose bytes keep `dfa` alive from
    /// `state`. `stack` is scratch space of at least `maxDepth + 1` entries.
    func walk(
        _ range: Range<Int>, from state: Int32, dfa: ByteDFA, stack: UnsafeMutablePointer<Int32>,
        into allowed: inout [Int32]
    ) {
        guard !range.isEmpty else { return }
        stack[0] = state
        let classCount = dfa.classCount
        nodes.withUnsafeBufferPointer { nodes in
            dfa.transitions.withUnsafeBufferPointer { transitions in
                dfa.classOf.withUnsafeBufferPointer { classOf in
                    var index = range.lowerBound
                    let end = range.upperBound
                    while index < end {
                        let node = nodes[index]
                        let depth = Int(node.depth)
                        let next = transitions[Int(stack[depth &- 1]) &* classCount &+ Int(classOf[Int(node.byte)])]
                        if next == ByteDFA.dead {
                            index = Int(node.end)
                            continue
                        }
                        if node.token >= 0 { allowed.append(node.token) }
                        stack[depth] = next
                        index &+= 1
                    }
                }
            }
        }
    }
}
