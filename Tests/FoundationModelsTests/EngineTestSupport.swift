import Foundation
import FoundationModels
import ModelStore
import Synchronization
import Testing

/// The real-model tests: one serialized suite (the models share two cores), nested suites in
/// the `Engine*.swift` files. Models are the catalog files in `$SOTTO_HOME/models`
/// (`~/.sotto/models`); a test whose model is not downloaded is skipped.
@Suite(.serialized) struct EngineTests {}

enum EngineModels {
    static let smollm = "smollm2-135m"
    static let qwen = "qwen2.5-coder-0.5b"

    /// The file of catalog model `id`, if it is on disk.
    static func path(_ id: String) -> String? {
        try? ModelStore().resolve(id: id).path
    }

    static var hasSmolLM: Bool { path(smollm) != nil }
    static var hasQwen: Bool { path(qwen) != nil }

    /// One model object per id and context size, so tests share loaded backends (and KV slots).
    private static let models = Mutex<[String: SystemLanguageModel]>([:])

    static func model(_ id: String, contextSize: Int? = nil) -> SystemLanguageModel {
        models.withLock { models in
            let key = "\(id)#\(contextSize ?? 0)"
            if let model = models[key] { return model }
            let model = SystemLanguageModel(model: .id(id), contextSize: contextSize)
            models[key] = model
            return model
        }
    }
}
