// One attention item run through a kernel set, for the kernel tests; also compiled into the arm64
// check (scripts/check-arm64), so it needs KernelsCore alone.

import KernelsCore

/// The outputs of `heads` query heads (of 4 in `q`, `dimension` floats each) attending over
/// `length` positions of a tiled key cache and its values, through `Set`.
func attentionOutputs<Set: KernelSet>(
    _: Set.Type, q: [Float], keys: [Float], values: [Float], dimension: Int, length: Int, heads: Int
) -> [Float] {
    let padded = (length + 15) / 16 * 16
    var scores = [Float](repeating: 0, count: 4 * padded)
    var out = [Float](repeating: .nan, count: 4 * dimension)
    q.withUnsafeBufferPointer { q in
        keys.withUnsafeBufferPointer { k in
            values.withUnsafeBufferPointer { v in
                scores.withUnsafeMutableBufferPointer { s in
                    out.withUnsafeMutableBufferPointer { o in
                        let (q, s, o) = (q.baseAddress!, s.baseAddress!, o.baseAddress!)
                        // Missing heads repeat the last, as `Attention` passes them.
                        let h = (0..<4).map { min($0, heads - 1) }
                        Set.attend(
                            AttentionItem(
                                queries: (
                                    q + h[0] * dimension, q + h[1] * dimension, q + h[2] * dimension,
                                    q + h[3] * dimension
                                ),
                                scores: (s + h[0] * padded, s + h[1] * padded, s + h[2] * padded, s + h[3] * padded),
                                outputs: (
                                    o + h[0] * dimension, o + h[1] * dimension, o + h[2] * dimension,
                                    o + h[3] * dimension
                                ),
                                keys: k.baseAddress!, values: v.baseAddress!, dimension: dimension, length: length,
                                scale: 1 / Float(dimension).squareRoot(), heads: heads))
                    }
                }
            }
        }
    }
    return Array(out.prefix(heads * dimension))
}
