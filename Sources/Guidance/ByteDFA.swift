/// A deterministic automaton over bytes, with bytes grouped into classes that no transition tells
/// apart.
///
/// State 0 is dead (absorbing, never accepting); every other state can still reach an accepting
/// state, so "not dead" means "this prefix can be completed". State 1 is the start.
struct ByteDFA: Sendable {
    static let dead: Int32 = 0
    static let start: Int32 = 1

    /// The class of each byte.
    let classOf: [UInt8]
    let classCount: Int
    /// `[stateCount][classCount]` next states.
    let transitions: [Int32]
    let accepting: [Bool]
    /// The only byte that keeps a state alive, or -1 (also -1 for accepting states, which may end).
    let forcedByte: [Int16]
    /// Whether any byte keeps the state alive (false: the output must end here).
    let canContinue: [Bool]
    /// The fewest bytes that complete the output from each state (-1 for the dead state).
    let distanceToAccept: [Int32]

    var stateCount: Int { accepting.count }

    @inline(__always)
    func next(_ state: Int32, _ byte: UInt8) -> Int32 {
        transitions[Int(state) &* classCount &+ Int(classOf[Int(byte)])]
    }

    /// The state after `bytes`, dead if they leave the language's prefixes.
    func run(_ bytes: some Sequence<UInt8>, from state: Int32 = start) -> Int32 {
        var state = state
        for byte in bytes {
            state = next(state, byte)
            if state == Self.dead { return state }
        }
        return state
    }

    /// What the subset construction may build and spend before it throws `tooLarge`.
    struct Limits {
        /// DFA states.
        var states: Int
        /// Transition-table cells: states × byte classes.
        var tableCells: Int
        /// NFA states and edges visited.
        var work: Int
    }

    /// Determinizes `nfa` (subset construction), drops states that cannot reach `final`, and
    /// numbers the rest in breadth-first order from the start.
    init(nfa: ByteNFA, start: Int32, final: Int32, limits: Limits) throws {
        // Byte classes: cut 0…255 wherever some edge begins or ends.
        var cuts = [Bool](repeating: false, count: 257)
        cuts[0] = true
        for edges in nfa.edges {
            for edge in edges {
                cuts[Int(edge.low)] = true
                cuts[Int(edge.high) + 1] = true
            }
        }
        var classOf = [UInt8](repeating: 0, count: 256)
        var classCount = 0
        for byte in 0..<256 {
            if cuts[byte] && byte > 0 { classCount += 1 }
            classOf[byte] = UInt8(classCount)
        }
        classCount += 1

        let subsets = try Self.determinize(
            nfa: nfa, start: start, final: final, classOf: classOf, classCount: classCount, limits: limits)
        let live = Self.liveStates(subsets.transitions, accepting: subsets.accepting, classCount: classCount)
        guard live[0] else {
            throw GuidanceError(.emptyLanguage, "no JSON text satisfies the schema")
        }

        // Renumber live states breadth-first: 0 = dead, 1 = start.
        var number = [Int32](repeating: -1, count: live.count)
        var order: [Int] = [0]
        number[0] = 1
        var head = 0
        while head < order.count {
            let old = order[head]
            head += 1
            for c in 0..<classCount {
                let target = Int(subsets.transitions[old * classCount + c])
                if target >= 0 && live[target] && number[target] < 0 {
                    number[target] = Int32(order.count + 1)
                    order.append(target)
                }
            }
        }
        var transitions = [Int32](repeating: Self.dead, count: (order.count + 1) * classCount)
        var accepting = [Bool](repeating: false, count: order.count + 1)
        for (index, old) in order.enumerated() {
            let state = index + 1
            accepting[state] = subsets.accepting[old]
            for c in 0..<classCount {
                let target = Int(subsets.transitions[old * classCount + c])
                if target >= 0 && live[target] { transitions[state * classCount + c] = number[target] }
            }
        }

        var classSize = [Int](repeating: 0, count: classCount)
        var classByte = [UInt8](repeating: 0, count: classCount)
        for byte in 0..<256 {
            classSize[Int(classOf[byte])] += 1
            classByte[Int(classOf[byte])] = UInt8(byte)
        }
        var forcedByte = [Int16](repeating: -1, count: accepting.count)
        var canContinue = [Bool](repeating: false, count: accepting.count)
        for state in 1..<accepting.count {
            for c in 0..<classCount where transitions[state * classCount + c] != Self.dead {
                canContinue[state] = true
                break
            }
        }
        for state in 1..<accepting.count where !accepting[state] {
            var only = -1
            for c in 0..<classCount where transitions[state * classCount + c] != Self.dead {
                only = only == -1 && classSize[c] == 1 ? c : -2
            }
            if only >= 0 { forcedByte[state] = Int16(classByte[only]) }
        }

        self.classOf = classOf
        self.classCount = classCount
        self.transitions = transitions
        self.accepting = accepting
        self.forcedByte = forcedByte
        self.canContinue = canContinue
        distanceToAccept = Self.distances(transitions, accepting: accepting, classCount: classCount)
    }

    /// Subset construction. Returns transitions between subset ids (-1: empty subset) and which
    /// subsets hold `final`; subset 0 is the start's closure.
    private static func determinize(
        nfa: ByteNFA, start: Int32, final: Int32, classOf: [UInt8], classCount: Int, limits: Limits
    ) throws -> (transitions: [Int32], accepting: [Bool]) {
        let stateLimit = min(limits.states, max(1, limits.tableCells / classCount))
        var work = 0
        func spend(_ amount: Int) throws {
            work += amount
            guard work <= limits.work else {
                throw GuidanceError(
                    .tooLarge,
                    "the schema's automaton takes more than \(limits.work) steps to build (\(nfa.stateCount) NFA states)"
                )
            }
        }
        var ids: [[Int32]: Int32] = [:]
        var subsets: [[Int32]] = []
        var transitions: [Int32] = []
        var accepting: [Bool] = []
        var mark = [Int](repeating: -1, count: nfa.stateCount)
        var generation = 0
        var stack: [Int32] = []

        func closure(_ seeds: [Int32]) -> [Int32] {
            generation += 1
            var result: [Int32] = []
            stack.removeAll(keepingCapacity: true)
            for seed in seeds where mark[Int(seed)] != generation {
                mark[Int(seed)] = generation
                stack.append(seed)
            }
            while let state = stack.popLast() {
                result.append(state)
                work += 1 + nfa.epsilons[Int(state)].count
                for next in nfa.epsilons[Int(state)] where mark[Int(next)] != generation {
                    mark[Int(next)] = generation
                    stack.append(next)
                }
            }
            // Only states with byte edges (or the final state) distinguish subsets.
            result.removeAll { nfa.edges[Int($0)].isEmpty && $0 != final }
            result.sort()
            return result
        }

        // Most subsets are one NFA state: those skip hashing.
        var singletonIDs = [Int32](repeating: -1, count: nfa.stateCount)

        func id(of subset: [Int32]) throws -> Int32 {
            if subset.count == 1 && singletonIDs[Int(subset[0])] >= 0 { return singletonIDs[Int(subset[0])] }
            try spend(subset.count)  // hashing it
            if let known = ids[subset] { return known }
            guard subsets.count < stateLimit else {
                throw GuidanceError(
                    .tooLarge,
                    "the schema needs more than \(stateLimit) automaton states (\(classCount) byte classes each)")
            }
            try spend(subset.count + classCount)
            let id = Int32(subsets.count)
            ids[subset] = id
            if subset.count == 1 { singletonIDs[Int(subset[0])] = id }
            subsets.append(subset)
            accepting.append(subset.contains(final))
            transitions.append(contentsOf: repeatElement(-1, count: classCount))
            return id
        }

        _ = try id(of: closure([start]))
        var buckets = [[Int32]](repeating: [], count: classCount)
        var used = [Bool](repeating: false, count: classCount)
        var index = 0
        while index < subsets.count {
            let subset = subsets[index]
            for c in 0..<classCount where used[c] {
                buckets[c].removeAll(keepingCapacity: true)
                used[c] = false
            }
            try spend(subset.count)
            for state in subset {
                try spend(nfa.edges[Int(state)].count)
                for edge in nfa.edges[Int(state)] {
                    for c in Int(classOf[Int(edge.low)])...Int(classOf[Int(edge.high)]) {
                        buckets[c].append(edge.target)
                        used[c] = true
                    }
                }
            }
            // Neighbouring classes often move to the same states: reuse the last subset's id.
            var previousClass = -1
            for c in 0..<classCount where !buckets[c].isEmpty {
                if previousClass >= 0 && buckets[c] == buckets[previousClass] {
                    transitions[index * classCount + c] = transitions[index * classCount + previousClass]
                    continue
                }
                previousClass = c
                let bucket = buckets[c]
                if bucket.count == 1 && nfa.epsilons[Int(bucket[0])].isEmpty {
                    let state = bucket[0]
                    if singletonIDs[Int(state)] >= 0 {
                        transitions[index * classCount + c] = singletonIDs[Int(state)]
                        continue
                    }
                    if nfa.edges[Int(state)].isEmpty && state != final { continue }
                    transitions[index * classCount + c] = try id(of: bucket)
                    continue
                }
                let target = closure(bucket)
                if !target.isEmpty { transitions[index * classCount + c] = try id(of: target) }
            }
            index += 1
        }
        return (transitions, accepting)
    }

    /// Breadth-first distances to the nearest accepting state.
    private static func distances(_ transitions: [Int32], accepting: [Bool], classCount: Int) -> [Int32] {
        let count = accepting.count
        var predecessors = [[Int32]](repeating: [], count: count)
        for source in 1..<count {
            for c in 0..<classCount {
                let target = Int(transitions[source * classCount + c])
                if target != Int(dead) && predecessors[target].last != Int32(source) {
                    predecessors[target].append(Int32(source))
                }
            }
        }
        var distance = [Int32](repeating: -1, count: count)
        var queue: [Int] = []
        for state in 1..<count where accepting[state] {
            distance[state] = 0
            queue.append(state)
        }
        var head = 0
        while head < queue.count {
            let state = queue[head]
            head += 1
            for source in predecessors[state] where distance[Int(source)] < 0 {
                distance[Int(source)] = distance[state] + 1
                queue.append(Int(source))
            }
        }
        return distance
    }

    /// Which subsets can reach an accepting subset (reverse breadth-first search).
    private static func liveStates(_ transitions: [Int32], accepting: [Bool], classCount: Int) -> [Bool] {
        let count = accepting.count
        // Reverse edges in compressed rows.
        var degree = [Int32](repeating: 0, count: count + 1)
        for source in 0..<count {
            for c in 0..<classCount {
                let target = transitions[source * classCount + c]
                if target >= 0 { degree[Int(target) + 1] += 1 }
            }
        }
        for index in 0..<count { degree[index + 1] += degree[index] }
        var fill = degree
        var sources = [Int32](repeating: 0, count: Int(degree[count]))
        for source in 0..<count {
            for c in 0..<classCount {
                let target = Int(transitions[source * classCount + c])
                if target >= 0 {
                    sources[Int(fill[target])] = Int32(source)
                    fill[target] += 1
                }
            }
        }
        var live = accepting
        var queue = (0..<count).filter { accepting[$0] }
        while let state = queue.popLast() {
            for index in Int(degree[state])..<Int(degree[state + 1]) {
                let source = Int(sources[index])
                if !live[source] {
                    live[source] = true
                    queue.append(source)
                }
            }
        }
        return live
    }
}
