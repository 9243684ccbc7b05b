import GGUF
import Inference
import Tokenizers

/// What a model file says about itself without its weights: its context length, tokenizer,
/// chat template and tool-call format. Read in well under a second; enough to count tokens
/// and answer `contextSize` while the weights are still loading.
package final class ModelHeader: Sendable {
    package let path: String
    /// The context length the model was trained for.
    package let contextLength: Int
    /// The chat template, tokenizer and BOS/EOS rules, built here once for the model (its
    /// weights are loaded with this format, not a second one).
    package let chatFormat: ChatFormat
    /// How the model writes tool calls; nil when its template takes no tools.
    package let toolFormat: ToolCallFormat?
    package let renderer: PromptRenderer

    /// Reads the header of the GGUF file at `path`.
    ///
    /// - Throws: `GGUFError` for a damaged file, the tokenizer's error for a bad vocabulary,
    ///   ``ModelHeaderError`` when the file lacks its architecture or context length.
    package init(path: String) throws {
        let file = try GGUFFile(path: path)
        guard let architecture = file.string(GGUFKey.architecture) else {
            throw ModelHeaderError(path: path, message: "no \(GGUFKey.architecture) key")
        }
        guard let length = file.int(GGUFKey.contextLength(architecture)), length > 0 else {
            throw ModelHeaderError(path: path, message: "no \(GGUFKey.contextLength(architecture)) key")
        }
        self.path = path
        contextLength = length
        let tokenizer = try Tokenizer(gguf: file)
        chatFormat = ChatFormat(file: file, tokenizer: tokenizer)
        toolFormat = ToolCallFormat(tokenizer: tokenizer, templateSource: file.string(GGUFKey.chatTemplate))
        renderer = PromptRenderer(format: chatFormat, passesTools: toolFormat != nil)
    }

    package var tokenizer: Tokenizer { chatFormat.tokenizer }
}

/// A model file whose header lacks what the engine needs.
package struct ModelHeaderError: Error, CustomStringConvertible {
    package let path: String
    package let message: String
    package var description: String { "\(path) is not a usable model: \(message)" }
}
