import Foundation
import Kernels
import Synchronization
import TestSupport
import Testing

@testable import Inference

/// The real models the tests run, found through `RealModels` (a failure under `scripts/test`, a
/// skip elsewhere, when one is not downloaded) and loaded once per process.
enum TestModels {
    private static let loaded = Mutex<[String: Model]>([:])

    /// The catalog model `id` (`smollm2-135m` or `qwen2.5-coder-0.5b`), loaded on the default
    /// kernel set or on `kernels`, once per set.
    static func model(_ id: String, kernels: KernelSetID? = nil) throws -> Model {
        let path = try RealModels.path(id)
        let set = kernels ?? KernelSelection.default
        return try loaded.withLock { loaded in
            if let model = loaded["\(id)/\(set)"] { return model }
            let model = try Model(path: path, kernels: set)
            loaded["\(id)/\(set)"] = model
            return model
        }
    }
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
