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
        var start: [Int32] = [0]
        var targets: [Int32] = []
        var seen = Set<Int32>()
        var frontier: [Int32] = []
        var next: [Int32] = []
        start.reserveCapacity(dfa.stateCount + 1)
        for state in 0..<Int32(dfa.stateCount) {
            seen.removeAll(keepingCapacity: true)
            if state != ByteDFA.dead {
                for sequence in sequences {
                    frontier = [state]
                    for range in sequence {
                        next.removeAll(keepingCapacity: true)
                        let first = Int(dfa.classOf[Int(range.lowerBound)])
                        let last = Int(dfa.classOf[Int(range.upperBound)])
                        for source in frontier {
                            for c in first...last {
                                let target = dfa.transitions[Int(source) * dfa.classCount + c]
                                if target == ByteDFA.dead {
                                    seen.insert(ByteDFA.dead)
                                } else if !next.contains(target) {
                                    next.append(target)
                                }
                            }
                        }
                        swap(&frontier, &next)
                        if frontier.isEmpty { break }
                    }
                    for target in frontier { seen.insert(target) }
                }
            }
            targets.append(contentsOf: seen)
            start.append(Int32(targets.count))
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
