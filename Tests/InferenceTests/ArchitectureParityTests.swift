import GGUF
import Kernels
import TestSupport
import Testing

@testable import Inference

/// The forward pass's arithmetic against llama.cpp's without quantization noise: both engines run
/// the model cut to its first blocks with those blocks' matrices in F32 (so no activation is
/// quantized before a product), and their final hidden states must agree to float rounding.
/// This pins down the RoPE variant, grouped-query attention, biases, norms, SwiGLU, causal masking
/// and chunked prefill (one prompt spans two chunks).
@Suite(.serialized) struct ArchitectureParityTests {
    /// Relative L2 error allowed between the hidden states. Measured: ≈ 1e-7 (float summation order).
    static let tolerance: Float = 1e-4

    /// On every set this CPU runs (their float paths differ: fused or separate multiply-adds).
    @Test(
        .onTestThreads, arguments: ["smollm2-135m", "qwen2.5-coder-0.5b"],
        KernelSelection.available.filter { $0 != .scalar })
    func hiddenStatesMatchLlamaCpp(_ id: String, set: KernelSetID) throws {
        let fixture = try LlamaFixture.load(id)
        try #require(fixture.hidden.count >= 3)
        let source = try TestModels.model(id).file
        let model = try Model(
            file: try Self.truncated(source, layers: fixture.truncated_layers), repacking: false, kernels: set)
        #expect(model.config.blockCount == fixture.truncated_layers)
        #expect(model.isOutputTied)
        #expect(fixture.hidden.contains { $0.prompt.count > Evaluator.prefillChunk })

        let evaluator = Evaluator(model: model, contextLength: 1024, threadCount: 2)
        for expected in fixture.hidden {
            evaluator.reset()
            try evaluator.evaluate(expected.prompt)
            let state = evaluator.finalHiddenState
            var error: Float = 0
            var norm: Float = 0
            for i in 0..<state.count {
                error += (state[i] - expected.state[i]) * (state[i] - expected.state[i])
                norm += expected.state[i] * expected.state[i]
            }
            let relative = (error / norm).squareRoot()
            #expect(relative < Self.tolerance, "\(id) \(set) \(expected.name): relative error \(relative)")
        }
    }

    /// `source` with only its first `layers` blocks, their tensors dequantized to F32, and no
    /// `output.weight` (so the LM head is tied) — what `make-llama-fixtures.py` gives llama.cpp.
    static func truncated(_ source: GGUFFile, layers: Int) throws -> GGUFFile {
        var writer = GGUFWriter(version: 3, alignment: source.alignment)
        let arch = try #require(source.architecture)
        for key in source.metadataKeys {
            if key == "general.alignment" { continue }
            writer.add(key, key == "\(arch).block_count" ? .uint32(UInt32(layers)) : source.metadata[key]!)
        }
        for tensor in source.tensors {
            if tensor.name == "output.weight" { continue }
            let bytes = source.bytes(of: tensor)
            if tensor.name.hasPrefix("blk.") {
                let block = Int(tensor.name.split(separator: ".")[1])!
                if block >= layers { continue }
                var values = [Float](repeating: 0, count: tensor.elementCount)
                values.withUnsafeMutableBufferPointer {
                    Dequantize.blocks(
                        type: tensor.type, bytes.baseAddress!, count: tensor.elementCount, into: $0.baseAddress!)
                }
                writer.addTensor(
                    tensor.name, shape: tensor.shape, type: .f32, data: values.withUnsafeBytes { Array($0) })
            } else {
                writer.addTensor(tensor.name, shape: tensor.shape, type: tensor.type, data: Array(bytes))
            }
        }
        return try GGUFFile(bytes: writer.bytes())
    }
}
