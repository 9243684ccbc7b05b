import Foundation
import FoundationModels
import LocalEngine
import Synchronization
import TestSupport
import Testing

/// The real-model tests: one serialized suite (the models share two cores), nested suites in
/// the `Engine*.swift` files. Models are found through `RealModels`: a model that is not
/// downloaded fails the test under `scripts/test` and skips it, saying how to get it, elsewhere.
@Suite(.serialized) struct EngineTests {}

enum EngineModels {
    static let smollm = RealModels.smollm
    static let qwen = RealModels.qwen

    /// One model object per id and context size, so tests share loaded runtimes (and KV slots).
    private static let models = Mutex<[String: LocalLanguageModel]>([:])

    /// Catalog model `id` with a context of `contextSize` tokens (nil: the default), run by the
    /// engine in this process.
    static func model(_ id: String, contextSize: Int? = nil) throws -> LocalLanguageModel {
        _ = try RealModels.file(id)
        return models.withLock { models in
            let key = "\(id)#\(contextSize ?? 0)"
            if let model = models[key] { return model }
            let model = LocalLanguageModel(model: .id(id), contextSize: contextSize)
            models[key] = model
            return model
        }
    }
}
