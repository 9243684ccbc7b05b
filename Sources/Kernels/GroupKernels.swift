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
        _ w: WeightMatrix, _ input: PreparedInput, tokens: Range<Int>, groups: Range<Int>, y: UnsafeMutablePointer<Float>
    ) {
        #if KERNELS_AVX512
            switch w.type {
            case .q4_1: run(w, input.q8!, tokens, groups, y, q4_1(_:group:blocks:act:out:stride:mask:), q4_1(_:group:blocks:act:out:stride:mask:))
            case .q5_0: run(w, input.q8!, tokens, groups, y, q5_0(_:group:blocks:act:out:stride:mask:), q5_0(_:group:blocks:act:out:stride:mask:))
            case .q8_0: run(w, input.q8!, tokens, groups, y, q8_0(_:group:blocks:act:out:stride:mask:), q8_0(_:group:blocks:act:out:stride:mask:))
            case .q4_K: run(w, input.q8K!, tokens, groups, y, q4_K(_:group:blocks:act:out:stride:mask:), q4_K(_:group:blocks:act:out:stride:mask:))
            case .q6_K: run(w, input.q8K!, tokens, groups, y, q6_K(_:group:blocks:act:out:stride:mask:), q6_K(_:group:blocks:act:out:stride:mask:))
            default: preconditionFailure("no interleaved kernel for \(w.type)")
            }
        #else
            preconditionFailure("interleaved matrices need the vector kernels")
        #endif
    }

    #if KERNELS_AVX512
        typealias Kernel<W: TileWidth> = (
            W.Type, UnsafeRawPointer, Int, TileActivations, UnsafeMutablePointer<Float>, Int, __mmask16
        ) -> Void

        @inline(__always)
        private static func run(
            _ w: WeightMatrix, _ act: ActivationBuffer, _ tokens: Range<Int>, _ groups: Range<Int>,
            _ y: UnsafeMutablePointer<Float>, _ one: Kernel<OneRow>, _ four: Kernel<FourRows>
        ) {
            let blocks = w.columns / w.type.blockSize
            for g in groups {
                let group = w.base + g * w.groupStride
                let mask = laneMask(w.rows - 16 * g)
                var t = tokens.lowerBound
                while t + 4 <= tokens.upperBound {
                    four(FourRows.self, group, blocks, TileActivations(act, firstRow: t), y + t * w.rows + 16 * g, w.rows, mask)
                    t += 4
                }
                while t < tokens.upperBound {
                    one(OneRow.self, group, blocks, TileActivations(act, firstRow: t), y + t * w.rows + 16 * g, w.rows, mask)
                    t += 1
                }
            }
        }
    #endif
}
