import GGUF
import Testing

@testable import Kernels

/// One weight row times one activation, through the vectorized kernel or its scalar twin.
func rowDot(
    _ type: GGMLType, _ w: UnsafeRawPointer, x: UnsafePointer<Float>, _ act: ActivationBuffer?, columns: Int,
    reference: Bool
) -> Float {
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
                    let fast = rowDot(
                        type, raw.baseAddress!, x: xb.baseAddress!, act, columns: columns, reference: false)
                    let slow = rowDot(
                        type, raw.baseAddress!, x: xb.baseAddress!, act, columns: columns, reference: true)
                    #expect(
                        abs(Double(fast - slow)) <= 1e-5 * magnitude + 1e-30,
                        "\(type) trial \(trial): \(fast) vs \(slow)")
                }
            }
        }
    }

    /// Saturated blocks (every quant byte, and the K-quants' packed scales, at one bit pattern;
    /// activations at ±127) drive each vector lane's integer sum to its bound, where a kernel
    /// that narrows its sums (Q4_K and Q5_K scale theirs as Int16) would first go wrong.
    @Test(arguments: allWeightTypes.filter { ActivationKind($0) != .float })
    func saturatedBlocksMatchScalar(type: GGMLType) {
        var rng = SeededGenerator(seed: 0x5A7 ^ UInt64(type.rawValue))
        let columns = 1536
        // The half-precision fields of each block, which `randomWeights` fills with model-like scales.
        let halves: Range<Int> =
            switch type {
            case .q4_0, .q5_0, .q8_0: 0..<2
            case .q6_K: 208..<210
            default: 0..<4
            }
        for pattern: UInt8 in [0xFF, 0x00, 0xF0, 0x0F] {
            var bytes = randomWeights(type, rows: 1, columns: columns, using: &rng)
            for i in bytes.indices where !halves.contains(i % type.bytesPerBlock) { bytes[i] = pattern }
            for sign: Float in [1, -1] {
                let x = (0..<columns).map { sign * ($0 % 3 == 0 ? -2 : 2) as Float }
                let act = ActivationBuffer(kind: ActivationKind(type), columns: columns, count: 1)
                defer { act.deallocate() }
                x.withUnsafeBufferPointer { act.quantize($0.baseAddress!, row: 0) }
                bytes.withUnsafeBytes { raw in
                    let w = WeightMatrix(type: type, rows: 1, columns: columns, base: raw.baseAddress!)
                    // Kernels that bias quants to unsigned subtract a term up to 128·|d|·Σ|x| (|d| ≤ 0.05
                    // here), whose rounding remains even where the weights are all zero.
                    let bias = 128 * 0.05 * x.reduce(0) { $0 + Double(abs($1)) }
                    let magnitude = referenceDot(dequantized(w)[...], x[...]).magnitude
                    x.withUnsafeBufferPointer { xb in
                        let fast = rowDot(
                            type, raw.baseAddress!, x: xb.baseAddress!, act, columns: columns, reference: false)
                        let slow = rowDot(
                            type, raw.baseAddress!, x: xb.baseAddress!, act, columns: columns, reference: true)
                        #expect(
                            abs(Double(fast - slow)) <= 1e-5 * magnitude + 1e-7 * bias,
                            "\(type) pattern \(pattern) sign \(sign): \(fast) vs \(slow)")
                    }
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
