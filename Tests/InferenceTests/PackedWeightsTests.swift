import Foundation
import GGUF
import Kernels
import TestSupport
import Testing

@testable import Inference

/// The packed-weights cache: the first load saves the repacked matrices, the next maps them and
/// computes the same logits; a damaged or foreign file is ignored and replaced.
@Suite struct PackedWeightsTests {
    /// The tiny model's file (a failure or a skip when it is not downloaded).
    var modelPath: String { get throws { try RealModels.path(RealModels.smollm) } }

    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "sotto-packed-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func logits(_ model: Model) throws -> [Float] {
        let evaluator = Evaluator(model: model, contextLength: 64, threadCount: 2)
        let tokens = model.tokenizer.encode("The capital of France is", parseSpecial: false)
        return snapshot(try evaluator.evaluate(tokens))
    }

    /// The sets this CPU runs that repack weights (all but the scalar one).
    static let repackingSets = KernelSelection.available.filter { WeightMatrix.repackedLayoutName(kernels: $0) != nil }

    @Test(.onTestThreads, arguments: repackingSets)
    func aSecondLoadMapsTheSavedCopyAndComputesTheSameLogits(set: KernelSetID) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try Model(path: modelPath, packedWeightsDirectory: directory, kernels: set)
        #expect(!first.isFromPackedWeights)
        let saved = try FileManager.default.contentsOfDirectory(atPath: directory)
        let layout = try #require(WeightMatrix.repackedLayoutName(kernels: set))
        #expect(
            saved.count == 1 && saved[0].hasPrefix("smollm2-135m.gguf-\(layout)-") && saved[0].hasSuffix(".packed"))

        let second = try Model(path: modelPath, packedWeightsDirectory: directory, kernels: set)
        #expect(second.isFromPackedWeights)
        #expect(try logits(first) == logits(second))
        let unpacked = try Model(path: modelPath, packedWeightsDirectory: nil, kernels: set)
        #expect(!unpacked.isFromPackedWeights)
        #expect(try logits(unpacked) == logits(second))
    }

    /// Each kernel set keeps its own copy: loading on one never reads or removes another's.
    @Test(.onTestThreads) func setsKeepTheirOwnCopies() throws {
        let sets = Self.repackingSets
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for set in sets { _ = try Model(path: modelPath, packedWeightsDirectory: directory, kernels: set) }
        let layouts = Set(sets.compactMap { WeightMatrix.repackedLayoutName(kernels: $0) })
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == layouts.count)
        for set in sets {
            #expect(try Model(path: modelPath, packedWeightsDirectory: directory, kernels: set).isFromPackedWeights)
        }
    }

    @Test(.onTestThreads, arguments: ["truncated", "bad magic", "wrong shape", "offset past the end", "empty"])
    func aDamagedFileIsIgnoredAndReplaced(_ damage: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let reference = try logits(try Model(path: modelPath, packedWeightsDirectory: directory))
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: directory).first)
        let path = directory + "/" + name
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        func setWord(_ index: Int, _ value: UInt64) {
            withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange((8 * index)..<(8 * index + 8), with: $0) }
        }
        switch damage {
        case "truncated": bytes = bytes.prefix(bytes.count / 2)
        case "bad magic": setWord(0, 0x1234)
        case "wrong shape": setWord(3 + 1, 17)  // the first matrix's rows
        case "offset past the end": setWord(3 + 3, UInt64(bytes.count))
        default: bytes = Data()
        }
        try bytes.write(to: URL(fileURLWithPath: path))

        let model = try Model(path: modelPath, packedWeightsDirectory: directory)
        #expect(!model.isFromPackedWeights)
        #expect(try logits(model) == reference)
        // Rewritten whole: the next load maps it again.
        #expect(try Model(path: modelPath, packedWeightsDirectory: directory).isFromPackedWeights)
    }

    @Test(.onTestThreads) func theLocationChangesWithTheModelFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let copy = directory + "/model.gguf"
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: copy))
        let set = try #require(Self.repackingSets.first)
        let before = try #require(PackedWeightsFile.location(forModelAt: copy, in: directory, kernels: set))
        #expect(PackedWeightsFile.location(forModelAt: copy, in: directory, kernels: set) == before)
        try Data(repeating: 7, count: 1001).write(to: URL(fileURLWithPath: copy))
        #expect(PackedWeightsFile.location(forModelAt: copy, in: directory, kernels: set) != before)
        #expect(PackedWeightsFile.location(forModelAt: directory + "/missing.gguf", in: directory, kernels: set) == nil)
        #expect(PackedWeightsFile.location(forModelAt: copy, in: directory, kernels: .scalar) == nil)
    }
}
