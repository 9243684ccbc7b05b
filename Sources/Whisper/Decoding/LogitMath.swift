import Foundation

/// Operations on one row of logits.
enum LogitMath {
    /// Replaces `x` with its log-softmax; returns nothing (in place).
    static func logSoftmax(_ x: UnsafeMutablePointer<Float>, count: Int) {
        var peak = -Float.infinity
        for i in 0..<count { peak = max(peak, x[i]) }
        var sum: Float = 0
        for i in 0..<count where x[i] > -.infinity { sum += expf(x[i] - peak) }
        let shift = peak + logf(sum)
        for i in 0..<count { x[i] -= shift }
    }

    /// The index of the largest value (the first of equal ones).
    static func argmax(_ x: UnsafePointer<Float>, count: Int) -> Int {
        var best = 0
        for i in 1..<count where x[i] > x[best] { best = i }
        return best
    }

    /// The `k` largest values of `x` (indices and values), largest first; ties keep the lower index.
    static func top(_ k: Int, of x: UnsafePointer<Float>, count: Int) -> [(index: Int, value: Float)] {
        var best: [(index: Int, value: Float)] = []
        best.reserveCapacity(k + 1)
        var floor = -Float.infinity
        for i in 0..<count {
            let v = x[i]
            if best.count == k && !(v > floor) { continue }
            var at = best.count
            while at > 0 && best[at - 1].value < v { at -= 1 }
            best.insert((i, v), at: at)
            if best.count > k { best.removeLast() }
            if best.count == k { floor = best[k - 1].value }
        }
        return best
    }
}
