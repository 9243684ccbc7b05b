import GGUF
import Testing

@testable import Kernels

/// One weight row times one activation, through the vectorized kernel or its scalar twin.
func rowDot(_ type: GGMLType, _ w: UnsafeRawPointer, x: UnsafePointer<Float>, _ act: ActivationBuffer?, columns: Int, reference: Bool) -> Float {
    let blocks = columns / type.blockSize
    switch (type, reference) {
    case (.f32, false): return Dot.f32(w, x, count: columns)
    case (.f32, true): return DotReference.f32(w, x, count: columns)
    case (.f16, false): return Dot.f16(w, x, count: columns)
    case (.f16, true): return DotReference.f16(w, x, count: columns)
    case (.bf16, false): return Dot.bf16(w, x, count: columns)
    case (.bf16, true): return DotReference.bf16(w, x, count: columns)
    case (.q4_0, false): return Dot.q4_0(w, act!.q8(0), blocks: blocks)
    case (.q4_0, true): return DotReference.q4_0(w, act!.q8(0), blocks: blocks)
    case (.q4_1, false): return Dot.q4_1(w, act!.q8(0), blocks: blocks)
    case (.q4_1, true): return DotReference.q4_1(w, act!.q8(0), blocks: blocks)
    case (.q5_0, false): return Dot.q5_0(w, act!.q8(0), blocks: blocks)
    case (.q5_0, true): return DotReference.q5_0(w, act!.q8(0), blocks: blocks)
    case (.q5_1, false): return Dot.q5_1(w, act!.q8(0), blocks: blocks)
    case (.q5_1, true): return DotReference.q5_1(w, act!.q8(0), blocks: blocks)
    case (.q8_0, false): return Dot.q8_0(w, act!.q8(0), blocks: blocks)
    case (.q8_0, true): return DotReference.q8_0(w, act!.q8(0), blocks: blocks)
    case (.q4_K, false): return Dot.q4_K(w, act!.q8K(0), blocks: blocks)
    case (.q4_K, true): return DotReference.q4_K(w, act!.q8K(0), blocks: blocks)
    case (.q5_K, false): return Dot.q5_K(w, act!.q8K(0), blocks: blocks)
    case (.q5_K, true): return DotReference.q5_K(w, act!.q8K(0), blocks: blocks)
    case (.q6_K, false): return Dot.q6_K(w, act!.q8K(0), blocks: blocks)
    case (.q6_K, true): return DotReference.q6_K(w, act!.q8K(0), blocks: blocks)
    default: preconditionFailure("\(type)")
    }
}

@Suite struct DotTests {
    /// The vectorized kernel agrees with its scalar twin to float rounding (1e-5 of Σ|w·x|),
    /// over many random rows, including all-zero activations and extreme quants.
    @Test(arguments: allWeightTypes)
    func vectorMatchesScalar(type: GGMLType) {
        var rng = SeededGenerator(seed: 0xD07 ^ UInt64(type.rawValue))
        for trial in 0..<40 {
            let columns = [256, 512, 768, 1536, 4864 / 256 * 256][trial % 5]
            let bytes = randomWeights(type, rows: 1, columns: columns, using: &rng)
            var x = randomFloats(columns, using: &rng, range: trial % 7 == 0 ? 0...0 : -3...3)
            if trial % 5 == 1 { x[3] = 40 }  // an outlier, as in real activations
            let kind = ActivationKind(type)
            let act = kind == .float ? nil : ActivationBuffer(kind: kind, columns: columns, count: 1)
            defer { act?.deallocate() }
            x.withUnsafeBufferPointer { act?.quantize($0.baseAddress!, row: 0) }
            bytes.withUnsafeBytes { raw in
                let w = WeightMatrix(type: type, rows: 1, columns: columns, base: raw.baseAddress!)
                let magnitude = referenceDot(dequantized(w)[...], x[...]).magnitude
                x.withUnsafeBufferPointer { xb in
                    let fast = rowDot(type, raw.baseAddress!, x: xb.baseAddress!, act, columns: columns, reference: false)
                    let slow = rowDot(type, raw.baseAddress!, x: xb.baseAddress!, act, columns: columns, reference: true)
                    #expect(abs(Double(fast - slow)) <= 1e-5 * magnitude + 1e-30, "\(type) trial \(trial): \(fast) vs \(slow)")
                }
            }
        }
    }

    /// The integer dot product equals the float dot product of the dequantized weights and the
    /// dequantized activation (an independent path through `Dequantize`).
    @Test(arguments: allWeightTypes)
    func scalarMatchesDequantizedFloat(type: GGMLType) {
        var rng = SeededGenerator(seed: 0xF1 ^ UInt64(type.rawValue))
        for trial in 0..<10 {
            let columns = 512
            let bytes = randomWeights(type, rows: 1, columns: columns, using: &rng)
            let x = randomFloats(columns, using: &rng)
            let kind = ActivationKind(type)
            let act = kind == .float ? nil : ActivationBuffer(kind: kind, columns: columns, count: 1)
            defer { act?.deallocate() }
            x.withUnsafeBufferPointer { act?.quantize($0.baseAddress!, row: 0) }
            let xq = act.map { dequantizedActivation($0, row: 0) } ?? x
            bytes.withUnsafeBytes { raw in
                let w = WeightMatrix(type: type, rows: 1, columns: columns, base: raw.baseAddress!)
                let expected = referenceDot(dequantized(w)[...], xq[...])
                let got = x.withUnsafeBufferPointer {
                    rowDot(type, raw.baseAddress!, x: $0.baseAddress!, act, columns: columns, reference: true)
                }
                #expect(abs(Double(got) - expected.value) <= 1e-5 * expected.magnitude, "\(type) trial \(trial)")
            }
        }
    }
}

@Suite struct FloatDotTests {
    /// Float rows of any length, including masked tails shorter than one vector.
    @Test(arguments: [GGMLType.f32, .f16, .bf16], [1, 5, 16, 31, 33, 100])
    func oddLengths(type: GGMLType, count: Int) {
        var rng = SeededGenerator(seed: UInt64(count) &* 31 &+ UInt64(type.rawValue))
        let bytes = randomWeights(type, rows: 1, columns: count, using: &rng)
        let x = randomFloats(count, using: &rng)
        bytes.withUnsafeBytes { raw in
            let w = WeightMatrix(type: type, rows: 1, columns: count, base: raw.baseAddress!)
            let expected = referenceDot(dequantized(w)[...], x[...])
            let fast = rowDot(type, raw.baseAddress!, x: x, nil, columns: count, reference: false)
            let slow = rowDot(type, raw.baseAddress!, x: x, nil, columns: count, reference: true)
            #expect(abs(Double(fast) - expected.value) <= 1e-5 * expected.magnitude + 1e-7)
            #expect(abs(Double(slow) - expected.value) <= 1e-5 * expected.magnitude + 1e-7)
        }
    }
}
