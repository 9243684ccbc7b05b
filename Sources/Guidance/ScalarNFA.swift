/// A Thompson NFA over Unicode scalars, compiled from a `RegexNode`. It is lowered to bytes
/// (inside a JSON string) by `ByteNFA.patternString`, and can check whole strings directly.
struct ScalarNFA {
    struct Edge {
        var set: Int
        var target: Int32
    }

    private(set) var sets: [ScalarSet] = []
    private(set) var edges: [[Edge]] = []
    private(set) var epsilons: [[Int32]] = []
    private(set) var start: Int32 = 0
    private(set) var final: Int32 = 0
    private var setIndex: [ScalarSet: Int] = [:]
    private let stateLimit: Int

    init(_ node: RegexNode, stateLimit: Int) throws {
        self.stateLimit = stateLimit
        start = try addState()
        final = try emit(node, from: start)
    }

    init(pattern: String, stateLimit: Int) throws {
        try self.init(RegexParser.parse(pattern), stateLimit: stateLimit)
    }

    var stateCount: Int { edges.count }

    private mutating func addState() throws -> Int32 {
        guard edges.count < stateLimit else {
            throw GuidanceError(.tooLarge, "the pattern needs more than \(stateLimit) automaton states")
        }
        edges.append([])
        epsilons.append([])
        return Int32(edges.count - 1)
    }

    private mutating func emit(_ node: RegexNode, from: Int32) throws -> Int32 {
        switch node {
        case .empty:
            return from
        case .set(let set):
            let index: Int
            if let known = setIndex[set] {
                index = known
            } else {
                index = sets.count
                sets.append(set)
                setIndex[set] = index
            }
            let target = try addState()
            edges[Int(from)].append(Edge(set: index, target: target))
            return target
        case .concatenation(let items):
            var state = from
            for item in items { state = try emit(item, from: state) }
            return state
        case .alternation(let branches):
            let end = try addState()
            for branch in branches {
                let branchStart = try addState()
                epsilons[Int(from)].append(branchStart)
                let branchEnd = try emit(branch, from: branchStart)
                epsilons[Int(branchEnd)].append(end)
            }
            return end
        case .repetition(let inner, let min, let max):
            // A fresh state before each copy keeps loops from leaking into what precedes them.
            var state = try addState()
            epsilons[Int(from)].append(state)
            for _ in 0..<min { state = try emit(inner, from: state) }
            if let max {
                let end = try addState()
                for _ in min..<max {
                    epsilons[Int(state)].append(end)
                    state = try emit(inner, from: state)
                }
                epsilons[Int(state)].append(end)
                return end
            }
            let loop = try addState()
            epsilons[Int(state)].append(loop)
            let innerEnd = try emit(inner, from: loop)
            epsilons[Int(innerEnd)].append(loop)
            let end = try addState()
            epsilons[Int(loop)].append(end)
            return end
        }
    }

    /// The ε-closure of `states`.
    func closure(_ states: [Int32]) -> Set<Int32> {
        var seen = Set(states)
        var stack = states
        while let state = stack.popLast() {
            for next in epsilons[Int(state)] where seen.insert(next).inserted { stack.append(next) }
        }
        return seen
    }

    /// Whether the whole of `string` matches.
    func matches(_ string: String) -> Bool {
        var current = closure([start])
        for scalar in string.unicodeScalars {
            var next: [Int32] = []
            for state in current {
                for edge in edges[Int(state)] where sets[edge.set].contains(scalar.value) { next.append(edge.target) }
            }
            if next.isEmpty { return false }
            current = closure(next)
        }
        return current.contains(final)
    }
}

extension ByteNFA {
    /// Emits a JSON string (quotes included) whose decoded content matches `regex` and has at
    /// most `maxLength` characters; returns the state after the closing quote. Characters are
    /// written canonically (see `JSONText.escape`), so each content has exactly one spelling.
    mutating func patternString(_ regex: ScalarNFA, maxLength: Int?, from: Int32) throws -> Int32 {
        let end = try addState()
        let limit = maxLength ?? 0
        var states: [Int: Int32] = [:]
        var pending: [(regexState: Int32, count: Int, state: Int32)] = []
        var suffixes: [Int32: [[ClosedRange<UInt8>]: Int32]] = [:]

        func state(_ regexState: Int32, _ count: Int) throws -> Int32 {
            let key = Int(regexState) * (limit + 1) + count
            if let known = states[key] { return known }
            let created = try addState()
            states[key] = created
            pending.append((regexState, count, created))
            return created
        }

        let open = try state(regex.start, 0)
        addEdge(from, 0x22, open)
        while let (regexState, count, byteState) = pending.popLast() {
            if regexState == regex.final { addEdge(byteState, 0x22, end) }
            for next in regex.epsilons[Int(regexState)] {
                addEpsilon(byteState, try state(next, count))
            }
            if maxLength != nil && count >= limit { continue }
            for edge in regex.edges[Int(regexState)] {
                let target = try state(edge.target, maxLength == nil ? 0 : count + 1)
                var shared = suffixes[target] ?? [:]
                try scalars(regex.sets[edge.set], from: byteState, to: target, suffixes: &shared)
                suffixes[target] = shared
            }
        }
        return end
    }
}
