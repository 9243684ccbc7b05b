import FoundationModels
import Guidance
import Inference
import Synchronization

/// A model loaded once per file for the whole process, with what every runtime over it shares:
/// the header (renderer, tool-call format), and the vocabulary index for constrained decoding
/// (built on first use).
///
/// Weights are a read-only mapping, so any number of sessions share one `LoadedModel`.
package final class LoadedModel: Sendable {
    package let path: String
    package let model: Model
    package let header: ModelHeader
    private let index = Mutex<VocabularyIndex?>(nil)

    package init(header: ModelHeader, model: Model) {
        path = header.path
        self.model = model
        self.header = header
    }

    package var renderer: PromptRenderer { header.renderer }
    package var toolFormat: ToolCallFormat? { header.toolFormat }

    /// The vocabulary prepared for token masks, built the first time it is asked for.
    package var vocabularyIndex: VocabularyIndex {
        if let built = index.withLock({ $0 }) { return built }
        // Built outside the lock (it takes a moment); a second builder's copy is dropped.
        let built = VocabularyIndex(Vocabulary(tokenizer: model.tokenizer))
        return index.withLock { index in
            if let index { return index }
            index = built
            return built
        }
    }
}
