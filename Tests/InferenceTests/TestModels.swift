import Foundation
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

    /// The model called `id` (`smollm2-135m` or `qwen2.5-coder-0.5b`).
    static func model(_ id: String) throws -> Model {
        switch id {
        case "smollm2-135m": try smollm.get()
        case "qwen2.5-coder-0.5b": try qwen.get()
        default: throw MissingModel(description: "no test model \(id)")
        }
    }

    private static func load(_ id: String) -> Result<Model, any Error> {
        let path = directory + "/\(id).gguf"
        guard FileManager.default.fileExists(atPath: path) else {
            return .failure(MissingModel(description: "model file \(path) is missing; run `sotto model pull \(id)`"))
        }
        return Result { try Model(path: path) }
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
