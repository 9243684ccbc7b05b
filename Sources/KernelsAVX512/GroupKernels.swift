#if arch(x86_64)
    import _Builtin_intrinsics.intel
    import KernelsCore
    import TensorFormats

    /// Products of interleaved (repacked) matrices.
    enum GroupKernels {
        /// `y[t·m.rows + r]` for activation rows `tokens` and the rows of row groups `groups`.
        static func compute(
            _ m: MatrixView, _ input: ProductInput, tokens: Range<Int>, groups: Range<Int>,
            y: UnsafeMutablePointer<Float>
        ) {
            let act = input.activations(for: m.type)
            let blocks = m.blocks
            for g in groups {
                let group = m.base + g * m.groupStride
                let mask = laneMask(m.rows - 16 * g)
                var t = tokens.lowerBound
                while t < tokens.upperBound {
                    let four = t + 4 <= tokens.upperBound
                    tile(
                        m.type, four, group, blocks, TileActivations(act, firstRow: t), y + t * m.rows + 16 * g, m.rows,
                        mask)
                    t += four ? 4 : 1
                }
            }
        }

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
    }
#endif
