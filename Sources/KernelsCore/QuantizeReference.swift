// Scalar activation quantizers: the reference twins of `Quantize`.

public enum QuantizeReference {
    /// Blocks of 32: d = amax/127, q = round-to-nearest-even(x·127/amax); ds = (d, d·Σq).
    public static func q8(
        _ x: UnsafePointer<Float>, count: Int, qs: UnsafeMutablePointer<Int8>, ds: UnsafeMutablePointer<Float>,
        halfSum: Bool = false
    ) {
        for b in 0..<(count / 32) {
            let xb = x + 32 * b
            var amax: Float = 0
            for i in 0..<32 { amax = max(amax, abs(xb[i])) }
            let d = amax / 127
            let id: Float = amax > 0 ? 127 / amax : 0
            var sum: Int32 = 0
            for i in 0..<32 {
                let q = Int32((xb[i] * id).rounded(.toNearestOrEven))
                qs[32 * b + i] = Int8(q)
                sum += q
            }
            ds[2 * b] = Float(Float16(d))
            ds[2 * b + 1] = halfSum ? Float(Float16(d * Float(sum))) : Float(Float16(d)) * Float(sum)
        }
    }

    /// Blocks of 256 as ggml's `quantize_row_q8_K`: the largest-magnitude element maps to −127.
    public static func q8K(
        _ x: UnsafePointer<Float>, count: Int, qs: UnsafeMutablePointer<Int8>, d: UnsafeMutablePointer<Float>,
        bsums: UnsafeMutablePointer<Int16>
    ) {
        for b in 0..<(count / 256) {
            let xb = x + 256 * b
            var amax: Float = 0, vmax: Float = 0
            for i in 0..<256 where abs(xb[i]) > amax {
                amax = abs(xb[i])
                vmax = xb[i]
            }
            if amax == 0 {
                d[b] = 0
                for i in 0..<256 { qs[256 * b + i] = 0 }
                for g in 0..<16 { bsums[16 * b + g] = 0 }
                continue
            }
            let iscale = -127 / vmax
            for g in 0..<16 {
                var sum: Int32 = 0
                for i in 0..<16 {
                    let q = min(127, Int32((iscale * xb[16 * g + i]).rounded(.toNearestOrEven)))
                    qs[256 * b + 16 * g + i] = Int8(q)
                    sum += q
                }
                bsums[16 * b + g] = Int16(sum)
            }
            d[b] = 1 / iscale
        }
    }
}
