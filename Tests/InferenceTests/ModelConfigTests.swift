import GGUF
import TestSupport
import Testing

@testable import Inference

@Suite struct ModelConfigTests {
    static let qwenLike: [String: GGUFValue] = [
        "general.architecture": .string("qwen2"),
        "qwen2.block_count": .uint32(24),
        "qwen2.embedding_length": .uint32(896),
        "qwen2.feed_forward_length": .uint32(4864),
        "qwen2.attention.head_count": .uint32(14),
        "qwen2.attention.head_count_kv": .uint32(2),
        "qwen2.rope.freq_base": .float32(1_000_000),
        "qwen2.attention.layer_norm_rms_epsilon": .float32(1e-6),
        "qwen2.context_length": .uint32(32768),
        "tokenizer.ggml.tokens": .array([.string("a"), .string("b")]),
    ]

    @Test(.onTestThreads) func readsHyperparameters() throws {
        let config = try ModelConfig(metadata: Self.qwenLike)
        #expect(config.architecture == "qwen2")
        #expect(config.blockCount == 24)
        #expect(config.headDimension == 64)
        #expect(config.ropeDimensionCount == 64)
        #expect(config.queryWidth == 896)
        #expect(config.keyValueWidth == 128)
        #expect(config.ropeStyle == .halves)
        #expect(config.ropeFrequencyBase == 1_000_000)
        #expect(config.vocabularySize == 2)
        #expect(config.contextLength == 32768)
    }

    @Test(.onTestThreads) func llamaUsesAdjacentPairRope() throws {
        var metadata: [String: GGUFValue] = [:]
        for (key, value) in Self.qwenLike {
            metadata[key.replacingOccurrences(of: "qwen2.", with: "llama.")] = value
        }
        metadata["general.architecture"] = .string("llama")
        metadata.removeValue(forKey: "llama.rope.freq_base")
        let config = try ModelConfig(metadata: metadata)
        #expect(config.ropeStyle == .adjacentPairs)
        #expect(config.ropeFrequencyBase == 10_000)  // the default when absent
    }

    @Test(.onTestThreads) func unsupportedArchitectureNamesTheSupportedOnes() {
        var metadata = Self.qwenLike
        metadata["general.architecture"] = .string("mamba")
        #expect(throws: InferenceError.unsupportedArchitecture("mamba", supported: ["llama", "qwen2"])) {
            try ModelConfig(metadata: metadata)
        }
        let message = InferenceError.unsupportedArchitecture("mamba", supported: ["llama", "qwen2"]).description
        #expect(message.contains("mamba") && message.contains("llama") && message.contains("qwen2"))
    }

    @Test(.onTestThreads) func missingAndInvalidKeysAreNamed() {
        var missing = Self.qwenLike
        missing.removeValue(forKey: "qwen2.block_count")
        #expect(throws: InferenceError.missingMetadata(key: "qwen2.block_count")) { try ModelConfig(metadata: missing) }

        var badHeads = Self.qwenLike
        badHeads["qwen2.attention.head_count_kv"] = .uint32(3)
        #expect(throws: InferenceError.self) { try ModelConfig(metadata: badHeads) }

        var negative = Self.qwenLike
        negative["qwen2.embedding_length"] = .int32(-5)
        do {
            _ = try ModelConfig(metadata: negative)
            Issue.record("a negative width was accepted")
        } catch {
            #expect("\(error)".contains("qwen2.embedding_length"))
        }
    }

    @Test(.onTestThreads) func unsupportedArchitectureFileFailsToLoad() throws {
        var writer = GGUFWriter()
        writer.add("general.architecture", .string("rwkv6"))
        writer.add("rwkv6.block_count", .uint32(1))
        writer.addTensor("token_embd.weight", shape: [32, 2], type: .f32, data: [UInt8](repeating: 0, count: 256))
        let file = try GGUFFile(bytes: writer.bytes())
        #expect(throws: InferenceError.unsupportedArchitecture("rwkv6", supported: ["llama", "qwen2"])) {
            try Model(file: file)
        }
    }

    @Test(.onTestThreads) func missingTensorIsNamed() throws {
        var writer = GGUFWriter()
        for (key, value) in Self.qwenLike { writer.add(key, value) }
        writer.addTensor("token_embd.weight", shape: [896, 2], type: .f32, data: [UInt8](repeating: 0, count: 896 * 8))
        let file = try GGUFFile(bytes: writer.bytes())
        #expect(throws: InferenceError.missingTensor("blk.0.attn_norm.weight")) { try Model(file: file) }
    }
}
