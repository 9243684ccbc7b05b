/// The tokens still in play at one sampling step, with their logits.
///
/// Sampling stages narrow or reshape this list; the final stage picks one entry. Storage is kept
/// between steps, so a step allocates nothing once the vocabulary has been seen.
public struct TokenCandidates: Sendable {
    /// Token ids, parallel to `logits`.
    public internal(set) var ids: [Int32] = []
    /// Current (possibly penalised or tempered) logits.
    public internal(set) var logits: [Float] = []
    /// Whether `logits` is sorted in descending order.
    public internal(set) var isSorted = false

    /// An empty list.
    public init() {}

    /// Number of candidates.
    public var count: Int { ids.count }

    /// Replaces the list with every token whose logit is not −∞ (masked tokens drop out here).
    public mutating func reset(from source: UnsafeBufferPointer<Float>) {
        ids.removeAll(keepingCapacity: true)
        logits.removeAll(keepingCapacity: true)
        ids.reserveCapacity(source.count)
        logits.reserveCapacity(source.count)
        for i in 0..<source.count where source[i] > -.infinity {
            ids.append(Int32(i))
            logits.append(source[i])
        }
        isSorted = false
    }

    /// Keeps the first `n` candidates.
    public mutating func truncate(to n: Int) {
        guard n < count else { return }
        ids.removeSubrange(n...)
        logits.removeSubrange(n...)
    }

    /// Keeps the candidates whose index satisfies `keep`, in order.
    mutating func filter(_ keep: (Int) -> Bool) {
        var out = 0
        for i in 0..<count where keep(i) {
            ids[out] = ids[i]
            logits[out] = logits[i]
            out += 1
        }
        truncate(to: out)
    }

    /// Multiplies every logit by `factor`.
    mutating func scale(by factor: Float) {
        for i in 0..<logits.count { logits[i] *= factor }
    }

    /// Sorts the candidates by logit, highest first (ties by lower id, for determinism).
    public mutating func sort() {
        guard !isSorted else { return }
        var order = Array(0..<count)
        let l = logits
        let d = ids
        order.sort { l[$0] > l[$1] || (l[$0] == l[$1] && d[$0] < d[$1]) }
        ids = order.map { d[$0] }
        logits = order.map { l[$0] }
        isSorted = true
    }

    /// Moves the `k` highest candidates to the front, sorted, and drops the rest.
    public mutating func keepTop(_ k: Int) {
        precondition(k > 0)
        if k >= count {
            sort()
            return
        }
        if isSorted {
            truncate(to: k)
            return
        }
        // A min-heap of the best k indices seen so far: O(n log k), far cheaper than a full sort
        // of a 150k-token vocabulary.
        var heap: [Int] = []
        heap.reserveCapacity(k)
        let l = logits
        let d = ids
        let better = { (a: Int, b: Int) -> Bool in l[a] > l[b] || (l[a] == l[b] && d[a] < d[b]) }
        for i in 0..<count {
            if heap.count < k {
                heap.append(i)
                var c = heap.count - 1
                while c > 0 {
                    let p = (c - 1) / 2
                    guard better(heap[p], heap[c]) else { break }
                    heap.swapAt(p, c)
                    c = p
                }
            } else if better(i, heap[0]) {
                heap[0] = i
                var p = 0
                while true {
                    let l = 2 * p + 1
                    let r = l + 1
                    var worst = p
                    if l < k, better(heap[worst], heap[l]) { worst = l }
                    if r < k, better(heap[worst], heap[r]) { worst = r }
                    if worst == p { break }
                    heap.swapAt(p, worst)
                    p = worst
                }
            }
        }
        heap.sort(by: better)
        ids.removeAll(keepingCapacity: true)
        logits.removeAll(keepingCapacity: true)
        for i in heap {
            ids.append(d[i])
            logits.append(l[i])
        }
        isSorted = true
    }

    /// The softmax of the current logits, in candidate order.
    public func probabilities() -> [Float] {
        guard let maximum = isSorted ? logits.first : logits.max() else { return [] }
        var result = [Float](repeating: 0, count: count)
        var sum: Double = 0
        for i in 0..<count {
            let e = expf(logits[i] - maximum)
            result[i] = e
            sum += Double(e)
        }
        let inverse = Float(1 / sum)
        for i in 0..<count { result[i] *= inverse }
        return result
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
