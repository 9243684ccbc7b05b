// Row dot products used by the matrix products. Each takes one weight row and one prepared
// activation row; `DotReference` holds the scalar twins.

enum Dot {
    static func f32(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
        DotReference.f32(w, x, count: count)
    }
    static func f16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
        DotReference.f16(w, x, count: count)
    }
    static func bf16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, count: Int) -> Float {
        DotReference.bf16(w, x, count: count)
    }
    static func q4_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float { DotReference.q4_0(w, a, blocks: blocks) }
    static func q4_1(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float { DotReference.q4_1(w, a, blocks: blocks) }
    static func q5_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float { DotReference.q5_0(w, a, blocks: blocks) }
    static func q5_1(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float { DotReference.q5_1(w, a, blocks: blocks) }
    static func q8_0(_ w: UnsafeRawPointer, _ a: Q8Row, blocks: Int) -> Float { DotReference.q8_0(w, a, blocks: blocks) }
    static func q4_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float { DotReference.q4_K(w, a, blocks: blocks) }
    static func q5_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float { DotReference.q5_K(w, a, blocks: blocks) }
    static func q6_K(_ w: UnsafeRawPointer, _ a: Q8KRow, blocks: Int) -> Float { DotReference.q6_K(w, a, blocks: blocks) }
}
