import Guidance
import Inference
import Synchronization

/// A model loaded once per file for the whole process, with what every backend over it shares:
/// the prompt renderer, the tool-call format, and the vocabulary index for constrained decoding
/// (built on first use).
///
/// Weights are a read-only mapping, so any number of sessions share one `LoadedModel`.
package final class LoadedModel: Sendable {
    package let path: String
    package let model: Model
    /// How the model writes tool calls; nil when its template takes no tools.
    package let toolFormat: ToolCallFormat?
    package let renderer: PromptRenderer
    private let index = Mutex<VocabularyIndex?>(nil)

    private init(path: String, model: Model) {
        self.path = path
        self.model = model
        toolFormat = ToolCallFormat(tokenizer: model.tokenizer, templateSource: model.chatTemplateSource)
        renderer = PromptRenderer(model: model, passesTools: toolFormat != nil)
    }

    /// The vocabulary prepared for token masks, built the first time it is asked for.
    package var vocabularyIndex: VocabularyIndex {
        index.withLock { index in
            if let index { return index }
            let built = VocabularyIndex(Vocabulary(tokenizer: model.tokenizer))
            index = built
            return built
        }
    }

    private static let loaded = Mutex<[String: LoadedModel]>([:])

    /// The model at `path`, loaded on first use and then shared; repacked weights are kept in
    /// `packedWeightsDirectory` (nil: no cache).
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/assetsUnavailable(_:)`` when the file
    ///   cannot be loaded, with the reason.
    package static func shared(path: String, packedWeightsDirectory: String? = nil) throws -> LoadedModel {
        // Loading under the lock keeps two sessions from mapping the same file twice.
        try loaded.withLock { loaded in
            if let model = loaded[path] { return model }
            let model: Model
            do {
                model = try Model(path: path, packedWeightsDirectory: packedWeightsDirectory)
            } catch {
                throw LanguageModelSession.GenerationError.assetsUnavailable(
                    .init(debugDescription: "The model file \(path) could not be loaded: \(error)"))
            }
            let shared = LoadedModel(path: path, model: model)
            loaded[path] = shared
            return shared
        }
    }
}
