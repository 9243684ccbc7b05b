import TensorFormats

/// A set's dot products of one weight row in GGUF's layout with one prepared activation row.
public protocol RowDots {
    static func f32(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float
    static func f16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float
    static func bf16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float
    static func q4_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float
    static func q4_1(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float
    static func q5_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float
    static func q5_1(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float
    static func q8_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float
    static func q4_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float
    static func q5_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float
    static func q6_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float
}

extension RowDots {
    /// `y[t·m.rows + r]` for input rows `tokens` and weight rows `rows` of `m` (GGUF's layout),
    /// one dot product each.
    @inlinable
    public static func products(
        _ m: MatrixView, _ input: ProductInput, tokens: Range<Int>, rows: Range<Int>,
        into y: UnsafeMutablePointer<Float>
    ) {
        let blocks = m.blocks
        let stride = m.rows
        switch m.type {
        case .f32, .f16, .bf16:
            for t in tokens {
                let x = input.x + t * input.columns
                for r in rows {
                    let p = m.row(r)
                    y[t * stride + r] =
                        switch m.type {
                        case .f32: f32(p, x, count: m.columns)
                        case .f16: f16(p, x, count: m.columns)
                        default: bf16(p, x, count: m.columns)
                        }
                }
            }
        case .q4_0, .q4_1, .q5_0, .q5_1, .q8_0:
            let act = input.activations(for: m.type)
            for t in tokens {
                let a = act.q8(t)
                for r in rows {
                    let p = m.row(r)
                    y[t * stride + r] =
                        switch m.type {
                        case .q4_0: q4_0(p, a, blocks: blocks)
                        case .q4_1: q4_1(p, a, blocks: blocks)
                        case .q5_0: q5_0(p, a, blocks: blocks)
                        case .q5_1: q5_1(p, a, blocks: blocks)
                        default: q8_0(p, a, blocks: blocks)
                        }
                }
            }
        case .q4_K, .q5_K, .q6_K:
            let act = input.activations(for: m.type)
            for t in tokens {
                let a = act.q8K(t)
                for r in rows {
                    let p = m.row(r)
                    y[t * stride + r] =
                        switch m.type {
                        case .q4_K: q4_K(p, a, blocks: blocks)
                        case .q5_K: q5_K(p, a, blocks: blocks)
                        default: q6_K(p, a, blocks: blocks)
                        }
                }
            }
        case .q8_1, .q2_K, .q3_K, .q8_K:
            preconditionFailure("unsupported \(m.type)")
        }
    }
}

extension DotReference: RowDots {}
