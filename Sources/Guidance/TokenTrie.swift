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

    /// Appends a trie holding `tokens` (ids into `bytes`); returns its node range.
    mutating func append(tokens: [Int32], bytes: [[UInt8]]) -> Range<Int> {
        let begin = nodes.count
        let sorted = tokens.sorted { a, b in
            bytes[Int(a)].lexicographicallyPrecedes(bytes[Int(b)])
        }
        var path: [Int] = []
        var previous: [UInt8] = []
        for token in sorted {
            let text = bytes[Int(token)]
            var common = 0
            let limit = min(text.count, previous.count)
            while common < limit && text[common] == previous[common] { common += 1 }
            while path.count > common { nodes[path.removeLast()].end = UInt32(nodes.count) }
            if common == text.count {
                // Same bytes as the previous token (sorting puts prefixes first).
                duplicates.append((nodes[path[path.count - 1]].token, token))
                continue
            }
            for index in common..<text.count {
                path.append(nodes.count)
                nodes.append(Node(end: 0, token: -1, byte: text[index], depth: UInt16(index + 1)))
            }
            nodes[nodes.count - 1].token = token
            maxDepth = max(maxDepth, text.count)
            previous = text
        }
        while let index = path.popLast() { nodes[index].end = UInt32(nodes.count) }
        return begin..<nodes.count
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
