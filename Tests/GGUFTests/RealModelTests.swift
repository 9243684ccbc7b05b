import Foundation
import TestSupport
import Testing

@testable import GGUF

struct RealModel: Sendable, CustomTestStringConvertible {
    let id: String
    let architecture: String
    let fileSize: Int
    let vocabulary: Int
    let embedding: Int
    let layers: Int
    let tensorCount: Int
    let types: Set<GGMLType>
    var testDescription: String { id }
}

@Suite("Real model files")
struct RealModelTests {
    static let models = [
        RealModel(
            id: "smollm2-135m", architecture: "llama", fileSize: 98_362_432, vocabulary: 49152, embedding: 576,
            layers: 30, tensorCount: 272, types: [.q4_1, .q8_0, .f32]),
        RealModel(
            id: "qwen2.5-coder-0.5b", architecture: "qwen2", fileSize: 491_400_064, vocabulary: 151_936,
            embedding: 896, layers: 24, tensorCount: 291, types: [.q5_0, .q8_0, .q4_K, .q6_K, .f32]),
        RealModel(
            id: "qwen2.5-coder-1.5b", architecture: "qwen2", fileSize: 1_117_320_768, vocabulary: 151_936,
            embedding: 1536, layers: 28, tensorCount: 339, types: [.q4_K, .q6_K, .f32]),
    ]

    /// The two small models the test command fetches, and the default model when it is present
    /// (it is 1.1 GB; `scripts/run` fetches it, the tests do not need it).
    static let available = models.filter { $0.id != RealModels.qwenLarge || RealModels.isPresent($0.id) }

    @Test(.onTestThreads, arguments: available)
    func parses(_ model: RealModel) throws {
        let path = try RealModels.path(model.id)
        let file = try GGUFFile(path: path)
        #expect(file.version == 3)
        #expect(file.fileSize == model.fileSize)
        #expect(file.alignment == 32)
        #expect(file.dataOffset % file.alignment == 0)
        #expect(file.architecture == model.architecture)
        #expect(file.metadataKeys.count == file.metadata.count)
        #expect(Set(file.metadataKeys) == Set(file.metadata.keys))

        let arch = model.architecture
        #expect(file.int(GGUFKey.embeddingLength(arch)) == model.embedding)
        #expect(file.int(GGUFKey.blockCount(arch)) == model.layers)
        #expect((file.int(GGUFKey.contextLength(arch)) ?? 0) >= 2048)
        #expect((file.double(GGUFKey.rmsNormEpsilon(arch)) ?? 0) > 0)
        #expect(file.string(GGUFKey.tokenizerModel) == "gpt2")
        #expect(file.bool(GGUFKey.addBOSToken) == false)
        #expect(file.string(GGUFKey.chatTemplate)?.contains("<|im_start|>") == true)

        let tokens = try #require(file.stringArray(GGUFKey.tokens))
        #expect(tokens.count == model.vocabulary)
        #expect(tokens.contains("<|im_end|>"))
        let types = try #require(file.intArray(GGUFKey.tokenTypes))
        #expect(types.count == model.vocabulary)
        let merges = try #require(file.stringArray(GGUFKey.merges))
        #expect(merges.count > 40_000)
        #expect(merges.allSatisfy { $0.split(separator: " ").count == 2 })
        if let eos = file.int(GGUFKey.eosTokenID) { #expect(eos < tokens.count) }

        #expect(file.tensors.count == model.tensorCount)
        #expect(Set(file.tensors.map(\.type)) == model.types)
        let embed = try #require(file.tensor(named: "token_embd.weight"))
        #expect(embed.shape == [model.embedding, model.vocabulary])
        #expect(embed.rowCount == model.vocabulary)
        #expect(embed.byteCount == model.vocabulary * embed.type.rowByteCount(elements: model.embedding))
        #expect(file.tensor(named: "blk.\(model.layers - 1).ffn_down.weight") != nil)
        #expect(file.tensor(named: "blk.\(model.layers).ffn_down.weight") == nil)
        let norm = try #require(file.tensor(named: "output_norm.weight"))
        #expect(norm.type == .f32 && norm.shape == [model.embedding])
        // RMS-norm weights are finite floats read in place from the mapping.
        let weights = file.bytes(of: norm).bindMemory(to: Float.self)
        #expect(weights.count == model.embedding)
        let finite = weights.allSatisfy { $0.isFinite }
        #expect(finite)

        // Tensors tile the data section without overlapping and end inside the file.
        let sorted = file.tensors.sorted { $0.offset < $1.offset }
        #expect(sorted.first?.offset == file.dataOffset)
        for (a, b) in zip(sorted, sorted.dropFirst()) { #expect(a.offset + a.byteCount <= b.offset) }
        let last = try #require(sorted.last)
        #expect(last.offset + last.byteCount <= file.fileSize)
        #expect(file.tensors.allSatisfy { $0.offset % file.alignment == 0 })
    }
}
