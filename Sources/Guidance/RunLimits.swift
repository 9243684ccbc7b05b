/// For every DFA state, how runs of characters from one class (e.g. plain string characters:
/// scalars ≥ U+0020 other than `"` and `\`, what most tokens are made of) fare from it.
///
/// The vocabulary index groups tokens made only of such characters into slices by length; a
/// slice is allowed wholesale when every run up to its longest length is safe, and skipped
/// wholesale when no run as short as its shortest length is possible. Only the remaining slices
/// need a walk through their trie.
struct RunLimits: Sendable {
    static let unbounded = Int32.max

    /// Every run of at most `safe[q]` characters of the class keeps state `q` alive.
    let safe: [Int32]
    /// No run longer than `possible[q]` characters of the class keeps state `q` alive.
    let possible: [Int32]

    init(dfa: ByteDFA, characters: ScalarSet) {
        let sequences = characters.ranges.flatMap { ScalarSet.utf8Sequences($0) }
        let successors = Self.successors(dfa, sequences: sequences)
        safe = Self.shortestDeath(successors, stateCount: dfa.stateCount)
        possible = Self.longestLife(successors, stateCount: dfa.stateCount)
    }

    /// The states reached by one character (spelled by one of `sequences`) from each state, in
    /// compressed rows (dead included when some character kills the state).
    private static func successors(
        _ dfa: ByteDFA, sequences: [[ClosedRange<UInt8>]]
    ) -> (start: [Int32], targets: [Int32]) {
        // Each sequence as the distinct byte classes at each of its positions; one-byte
        // sequences merged into a single list.
        func classes(_ range: ClosedRange<UInt8>) -> [Int] {
            Array(Set(range.map { Int(dfa.classOf[Int($0)]) })).sorted()
        }
        let singles = Array(Set(sequences.filter { $0.count == 1 }.flatMap { classes($0[0]) })).sorted()
        let paths = sequences.filter { $0.count > 1 }.map { $0.map(classes) }

        let classCount = dfa.classCount
        var start: [Int32] = [0]
        var targets: [Int32] = []
        start.reserveCapacity(dfa.stateCount + 1)
        var mark = [Int32](repeating: -1, count: dfa.stateCount)
        var frontier: [Int32] = []
        var reached: [Int32] = []
        var next: [Int32] = []
        dfa.transitions.withUnsafeBufferPointer { transitions in
            for state in 0..<Int32(dfa.stateCount) {
                defer { start.append(Int32(targets.count)) }
                if state == ByteDFA.dead { continue }
                var dies = false
                // Characters end in `next`; `mark` keeps each target once per state.
                next.removeAll(keepingCapacity: true)
                let row = Int(state) * classCount
                for c in singles { next.append(transitions[row + c]) }
                for path in paths {
                    frontier.removeAll(keepingCapacity: true)
                    frontier.append(state)
                    var position = 0
                    while position < path.count && !frontier.isEmpty {
                        reached.removeAll(keepingCapacity: true)
                        for source in frontier {
                            for c in path[position] {
                                let target = transitions[Int(source) * classCount + c]
                                if target == ByteDFA.dead {
                                    dies = true
                                } else if !reached.contains(target) {
                                    reached.append(target)
                                }
                            }
                        }
                        swap(&frontier, &reached)
                        position += 1
                    }
                    next += frontier
                }
                for target in next {
                    if target == ByteDFA.dead {
                        dies = true
                    } else if mark[Int(target)] != state {
                        mark[Int(target)] = state
                        targets.append(target)
                    }
                }
                if dies { targets.append(ByteDFA.dead) }
            }
        }
        return (start, targets)
    }

    /// One less than the fewest plain characters that lead to the dead state.
    private static func shortestDeath(_ graph: (start: [Int32], targets: [Int32]), stateCount: Int) -> [Int32] {
        var predecessors = [[Int32]](repeating: [], count: stateCount)
        for state in 0..<stateCount {
            for index in Int(graph.start[state])..<Int(graph.start[state + 1]) {
                predecessors[Int(graph.targets[index])].append(Int32(state))
            }
        }
        var distance = [Int32](repeating: -1, count: stateCount)
        distance[Int(ByteDFA.dead)] = 0
        var queue: [Int32] = [ByteDFA.dead]
        var head = 0
        while head < queue.count {
            let state = queue[head]
            head += 1
            for source in predecessors[Int(state)] where distance[Int(source)] < 0 && source != ByteDFA.dead {
                distance[Int(source)] = distance[Int(state)] + 1
                queue.append(source)
            }
        }
        return distance.map { $0 < 0 ? unbounded : $0 - 1 }
    }

    /// The most plain characters that can follow without dying (`unbounded` on a cycle).
    private static func longestLife(_ graph: (start: [Int32], targets: [Int32]), stateCount: Int) -> [Int32] {
        enum Color { case white, gray, black }
        var color = [Color](repeating: .white, count: stateCount)
        var length = [Int32](repeating: 0, count: stateCount)
        length[Int(ByteDFA.dead)] = -1
        color[Int(ByteDFA.dead)] = .black
        // Iterative depth-first search; a gray successor closes a cycle.
        var stack: [(state: Int32, next: Int32)] = []
        for root in 1..<stateCount where color[root] == .white {
            color[root] = .gray
            stack.append((Int32(root), graph.start[root]))
            while let top = stack.last {
                let state = Int(top.state)
                if top.next < graph.start[state + 1] {
                    stack[stack.count - 1].next += 1
                    let target = Int(graph.targets[Int(top.next)])
                    if color[target] == .white {
                        color[target] = .gray
                        stack.append((Int32(target), graph.start[target]))
                    } else if color[target] == .gray {
                        length[state] = unbounded
                    }
                    continue
                }
                stack.removeLast()
                color[state] = .black
                if length[state] != unbounded {
                    var best: Int32 = 0
                    for index in Int(graph.start[state])..<Int(graph.start[state + 1]) {
                        let target = Int(graph.targets[Int(index)])
                        if target == Int(ByteDFA.dead) { continue }
                        if length[target] == unbounded {
                            best = unbounded
                            break
                        }
                        best = max(best, length[target] + 1)
                    }
                    length[state] = best
                }
            }
        }
        return length
    }
}
