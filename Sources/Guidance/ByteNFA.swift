/// A byte-level NFA under construction: states joined by byte-range edges and ε-edges.
///
/// Schema pieces are emitted in "from → to" style: a builder takes the state where its text
/// starts and returns (or is given) the state where it ends. The grammar is later determinized
/// into a `ByteDFA`.
struct ByteNFA {
    struct Edge {
        var low: UInt8
        var high: UInt8
        var target: Int32
    }

    private(set) var edges: [[Edge]] = []
    private(set) var epsilons: [[Int32]] = []
    /// The most states the builder may create before it throws `tooLarge`.
    let stateLimit: Int

    init(stateLimit: Int) {
        self.stateLimit = stateLimit
    }

    var stateCount: Int { edges.count }

    mutating func addState() throws -> Int32 {
        guard edges.count < stateLimit else {
            throw GuidanceError(
                .tooLarge, "the schema needs more than \(stateLimit) automaton states (counts or lengths too large)")
        }
        edges.append([])
        epsilons.append([])
        return Int32(edges.count - 1)
    }

    mutating func addEdge(_ from: Int32, _ low: UInt8, _ high: UInt8, _ to: Int32) {
        precondition(low <= high)
        edges[Int(from)].append(Edge(low: low, high: high, target: to))
    }

    mutating func addEdge(_ from: Int32, _ byte: UInt8, _ to: Int32) {
        addEdge(from, byte, byte, to)
    }

    mutating func addEpsilon(_ from: Int32, _ to: Int32) {
        if from != to { epsilons[Int(from)].append(to) }
    }

    /// Whether `target` can be reached from `source` (through byte edges and ε-edges).
    func canReach(_ target: Int32, from source: Int32) -> Bool {
        var seen: Set<Int32> = [source]
        var stack = [source]
        while let state = stack.popLast() {
            if state == target { return true }
            for next in edges[Int(state)].map(\.target) + epsilons[Int(state)] where seen.insert(next).inserted {
                stack.append(next)
            }
        }
        return false
    }

    /// Emits `bytes` starting at `from`; returns the state after the last byte.
    mutating func literal(_ bytes: some Collection<UInt8>, from: Int32) throws -> Int32 {
        var state = from
        for byte in bytes {
            let next = try addState()
            addEdge(state, byte, next)
            state = next
        }
        return state
    }

    /// Emits `bytes` from `from`, ending exactly at `to`.
    mutating func literal(_ bytes: [UInt8], from: Int32, to: Int32) throws {
        guard let last = bytes.last else {
            addEpsilon(from, to)
            return
        }
        let before = try literal(bytes.dropLast(), from: from)
        addEdge(before, last, to)
    }

    /// Emits a sequence of byte ranges from `from` to `to`, sharing states with earlier sequences
    /// registered in `suffixes` that end the same way (UTF-8 continuation runs, escapes).
    mutating func sequence(
        _ ranges: [ClosedRange<UInt8>], from: Int32, to: Int32, suffixes: inout [[ClosedRange<UInt8>]: Int32]
    ) throws {
        precondition(!ranges.isEmpty)
        // Walk from the end: the state before ranges[i...] is keyed by that suffix.
        var next = to
        for index in stride(from: ranges.count - 1, through: 1, by: -1) {
            let suffix = Array(ranges[index...])
            if let known = suffixes[suffix] {
                next = known
                continue
            }
            let state = try addState()
            addEdge(state, ranges[index].lowerBound, ranges[index].upperBound, next)
            suffixes[suffix] = state
            next = state
        }
        addEdge(from, ranges[0].lowerBound, ranges[0].upperBound, next)
    }
}
