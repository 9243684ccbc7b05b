import GGUF

#if KERNELS_AVX512
    import _Builtin_intrinsics.intel
#endif

/// Activation rows of one tile, consecutive in an `ActivationBuffer`.
struct TileActivations {
    let base: UnsafeRawPointer
    let stride: Int
    let columns: Int

    init(_ buffer: ActivationBuffer, firstRow: Int) {
        base = UnsafeRawPointer(buffer.base + firstRow * buffer.rowStride)
        stride = buffer.rowStride
        columns = buffer.columns
    }

    @inline(__always) func qs(_ k: Int) -> UnsafeRawPointer { base + k * stride }
    /// Q8: (d, d·Σq) per block of 32.
    @inline(__always) func ds(_ k: Int) -> UnsafePointer<Float> {
        (base + k * stride + columns).assumingMemoryBound(to: Float.self)
    }
    /// Q8_K: d per block of 256.
    @inline(__always) func d(_ k: Int) -> UnsafePointer<Float> {
        (base + k * stride + columns).assumingMemoryBound(to: Float.self)
    }
    /// Q8_K: sums of 32 quants, as Int16.
    @inline(__always) func bsums32(_ k: Int) -> UnsafeRawPointer {
        base + k * stride + columns + columns / 64 + columns / 8
    }
    /// Q8_K: 32 × sums of 16 quants, as Int32.
    @inline(__always) func bsums16x32(_ k: Int) -> UnsafePointer<Int32> {
        (base + k * stride + columns + columns / 64 + columns / 8 + columns / 16).assumingMemoryBound(to: Int32.self)
    }
}

/// Products of interleaved (repacked) matrices.
enum GroupKernels {
    /// `y[t·w.rows + r]` for activation rows `tokens` and the rows of row groups `groups`.
    static func compute(
        _ w: WeightMatrix, _ input: PreparedInput, tokens: Range<Int>, groups: Range<Int>,
        y: UnsafeMutablePointer<Float>
    ) {
        #if KERNELS_AVX512
            let act =
                switch ActivationKind(w.type) {
                case .q8: input.q8!
                case .q8_1: input.q8_1!
                default: input.q8K!
                }
            let blocks = w.columns / w.type.blockSize
            for g in groups {
                let group = w.base + g * w.groupStride
                let mask = laneMask(w.rows - 16 * g)
                var t = tokens.lowerBound
                while t < tokens.upperBound {
                    let four = t + 4 <= tokens.upperBound
                    tile(
                        w.type, four, group, blocks, TileActivations(act, firstRow: t), y + t * w.rows + 16 * g, w.rows,
                        mask)
                    t += four ? 4 : 1
                }
            }
        #else
            preconditionFailure("interleaved matrices need the vector kernels")
        #endif
    }

    #if KERNELS_AVX512
        /// One kernel call, each (type, width) its own function so the register allocator sees one loop nest.
        @inline(never)
        static func tile(
            _ type: GGMLType, _ four: Bool, _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations,
            _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ mask: __mmask16
        ) {
            switch (type, four) {
            case (.q4_1, false): q4_1x1(g, blocks, act, out, stride, mask)
            case (.q4_1, true): q4_1x4(g, blocks, act, out, stride, mask)
            case (.q5_0, false): q5_0x1(g, blocks, act, out, stride, mask)
            case (.q5_0, true): q5_0x4(g, blocks, act, out, stride, mask)
            case (.q8_0, false): q8_0x1(g, blocks, act, out, stride, mask)
            case (.q8_0, true): q8_0x4(g, blocks, act, out, stride, mask)
            case (.q4_K, false): q4_Kx1(g, blocks, act, out, stride, mask)
            case (.q4_K, true): q4_Kx4(g, blocks, act, out, stride, mask)
            case (.q6_K, false): q6_Kx1(g, blocks, act, out, stride, mask)
            case (.q6_K, true): q6_Kx4(g, blocks, act, out, stride, mask)
            default: preconditionFailure("no interleaved kernel for \(type)")
            }
        }

        @inline(never) static func q4_1x1(
            _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: UnsafeMutablePointer<Float>,
            _ stride: Int,
            _ mask: __mmask16
        ) { q4_1(OneRow.self, group: g, blocks: blocks, act: act, out: out, stride: stride, mask: mask) }

        @inline(never) static func q4_1x4(
            _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: UnsafeMutablePointer<Float>,
            _ stride: Int,
            _ mask: __mmask16
        ) { q4_1(FourRows.self, group: g, blocks: blocks, act: act, out: out, stride: stride, mask: mask) }

        @inline(never) static func q5_0x1(
            _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: UnsafeMutablePointer<Float>,
            _ stride: Int,
            _ mask: __mmask16
        ) { q5_0(OneRow.self, group: g, blocks: blocks, act: act, out: out, stride: stride, mask: mask) }

        @inline(never) static func q5_0x4(
            _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: UnsafeMutablePointer<Float>,
            _ stride: Int,
            _ mask: __mmask16
        ) { q5_0(FourRows.self, group: g, blocks: blocks, act: act, out: out, stride: stride, mask: mask) }

        @inline(never) static func q8_0x1(
            _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: UnsafeMutablePointer<Float>,
            _ stride: Int,
            _ mask: __mmask16
        ) { q8_0(OneRow.self, group: g, blocks: blocks, act: act, out: out, stride: stride, mask: mask) }

        @inline(never) static func q8_0x4(
            _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: UnsafeMutablePointer<Float>,
            _ stride: Int,
            _ mask: __mmask16
        ) { q8_0(FourRows.self, group: g, blocks: blocks, act: act, out: out, stride: stride, mask: mask) }

        @inline(never) static func q4_Kx1(
            _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: UnsafeMutablePointer<Float>,
            _ stride: Int,
            _ mask: __mmask16
        ) { q4_K(OneRow.self, group: g, blocks: blocks, act: act, out: out, stride: stride, mask: mask) }

        @inline(never) static func q4_Kx4(
            _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: UnsafeMutablePointer<Float>,
            _ stride: Int,
            _ mask: __mmask16
        ) { q4_K(FourRows.self, group: g, blocks: blocks, act: act, out: out, stride: stride, mask: mask) }

        @inline(never) static func q6_Kx1(
            _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: UnsafeMutablePointer<Float>,
            _ stride: Int,
            _ mask: __mmask16
        ) { q6_K(OneRow.self, group: g, blocks: blocks, act: act, out: out, stride: stride, mask: mask) }

        @inline(never) static func q6_Kx4(
            _ g: UnsafeRawPointer, _ blocks: Int, _ act: TileActivations, _ out: UnsafeMutablePointer<Float>,
            _ stride: Int,
            _ mask: __mmask16
        ) { q6_K(FourRows.self, group: g, blocks: blocks, act: act, out: out, stride: stride, mask: mask) }
    #endif
}
