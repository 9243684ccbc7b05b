import Foundation
import Kernels
import Testing

@testable import Inference

/// The real models the tests run, loaded once per process from `$SOTTO_HOME/models`
/// (default `~/.sotto/models`).
enum TestModels {
    static var directory: String {
        let home = ProcessInfo.processInfo.environment["SOTTO_HOME"] ?? (NSHomeDirectory() + "/.sotto")
        return home + "/models"
    }

    static let smollm = load("smollm2-135m")
    static let qwen = load("qwen2.5-coder-0.5b")

    /// The model called `id` (`smollm2-135m` or `qwen2.5-coder-0.5b`), on the default kernel set
    /// or on `kernels` (loaded once per set and kept).
    static func model(_ id: String, kernels: KernelSetID? = nil) throws -> Model {
        if let kernels, kernels != KernelSelection.default { return try perSet.model(id, kernels) }
        switch id {
        case "smollm2-135m": return try smollm.get()
        case "qwen2.5-coder-0.5b": return try qwen.get()
        default: throw MissingModel(description: "no test model \(id)")
        }
    }

    private static let perSet = ModelsBySet()

    /// Models loaded on a kernel set other than the default.
    private final class ModelsBySet: @unchecked Sendable {
        // @unchecked Sendable: `models` is only touched under `lock`.
        private let lock = NSLock()
        private var models: [String: Model] = [:]

        func model(_ id: String, _ kernels: KernelSetID) throws -> Model {
            lock.lock()
            defer { lock.unlock() }
            if let model = models["\(id)/\(kernels)"] { return model }
            let model = try load(id, kernels: kernels).get()
            models["\(id)/\(kernels)"] = model
            return model
        }
    }

    private static func load(_ id: String, kernels: KernelSetID? = nil) -> Result<Model, any Error> {
        let path = directory + "/\(id).gguf"
        guard FileManager.default.fileExists(atPath: path) else {
            return .failure(MissingModel(description: "model file \(path) is missing; run `sotto model pull \(id)`"))
        }
        return Result { try Model(path: path, kernels: kernels) }
    }
}

struct MissingModel: Error, CustomStringConvertible {
    let description: String
}

/// A copy of the logits, for comparisons across evaluations.
func snapshot(_ logits: UnsafeMutableBufferPointer<Float>) -> [Float] { Array(logits) }

/// The largest absolute difference between two equally long arrays.
func maxAbsDifference(_ a: [Float], _ b: [Float]) -> Float {
    precondition(a.count == b.count)
    var worst: Float = 0
    for i in 0..<a.count { worst = max(worst, abs(a[i] - b[i])) }
    return worst
}

/// The index of the largest value.
func argmax(_ values: [Float]) -> Int? {
    values.withUnsafeBufferPointer { SamplerChain.argmax($0) }
}
