import ChatTemplates
import Foundation
import GGUF
import Kernels
import KernelsCore
import Tokenizers

/// A loaded model: its config, tokenizer, chat template and memory-mapped weights.
///
/// ```swift
/// let model = try Model(path: "/root/.sotto/models/smollm2-135m.gguf")
/// let evaluator = try Evaluator(model: model)
/// let logits = try evaluator.evaluate(model.tokenizer.encode("Hello", parseSpecial: false))
/// ```
///
/// Loading maps the file and checks every tensor the architecture needs; weights are read in
/// place, never copied. A model is immutable and may be shared by any number of `Evaluator`s on
/// any threads (each evaluator owns its own KV cache).
// @unchecked Sendable: every stored property is a `let` set in `init` and never mutated; the
// weights are read-only views of a read-only mapping owned by `file`.
public final class Model: @unchecked Sendable {
    /// The hyperparameters.
    public let config: ModelConfig
    /// The model's own tokenizer, built from the GGUF metadata.
    public let tokenizer: Tokenizer
    /// The Jinja source of `tokenizer.chat_template`, if the file has one.
    public let chatTemplateSource: String?
    /// The GGUF file the weights are mapped from.
    public let file: GGUFFile
    /// How long opening, checking and mapping took.
    public let loadDuration: Duration
    /// The kernel set every product and vector operation of this model runs on.
    public let kernelSet: KernelSetID

    let weights: ModelWeights
    let architecture: Architecture
    private let parsedTemplate: Result<ChatTemplate, any Error>?

    /// Loads the GGUF file at `path`.
    ///
    /// - Throws: `GGUFError` for a damaged file, `InferenceError` for an unsupported architecture or
    ///   missing tensors, or the tokenizer's error for a bad vocabulary.
    ///
    /// With `repacking` (the default), weight matrices are copied once into the layout the kernels
    /// read fastest and the file's pages for them are released; without it they are used in place
    /// in the mapping (faster to load, slower to run).
    ///
    /// With a `packedWeightsDirectory` (a data directory's `cache/packed`, from `ModelStore`),
    /// the repacked matrices are saved there after the first load, and later loads of the same,
    /// unchanged file map them from there instead of repacking; nil (the default) keeps no cache.
    /// A cache that cannot be written or read is skipped silently: the model loads the slow way.
    ///
    /// `kernels` names the kernel set (default: `SOTTO_KERNELS`, else the best this CPU runs).
    ///
    /// - Throws: also `KernelSelectionError` when the set (or `SOTTO_KERNELS`) names one this CPU
    ///   cannot run.
    public convenience init(
        path: String, repacking: Bool = true, packedWeightsDirectory: String? = nil, kernels: KernelSetID? = nil
    ) throws {
        let start = ContinuousClock().now
        let kernels = try kernels.map { try KernelSelection.resolve($0.rawValue) } ?? KernelSelection.resolve()
        let file = try GGUFFile(path: path)
        let location =
            repacking
            ? packedWeightsDirectory.flatMap {
                PackedWeightsFile.location(forModelAt: path, in: $0, kernels: kernels)
            } : nil
        try self.init(file: file, repacking: repacking, packedLocation: location, kernels: kernels, start: start)
    }

    /// Loads a model from an opened GGUF file (also used by tests with synthetic files).
    package convenience init(file: GGUFFile, repacking: Bool = true, kernels: KernelSetID? = nil) throws {
        let kernels = try kernels.map { try KernelSelection.resolve($0.rawValue) } ?? KernelSelection.resolve()
        try self.init(
            file: file, repacking: repacking, packedLocation: nil, kernels: kernels, start: ContinuousClock().now)
    }

    /// Whether the weight matrices were mapped from a packed-weights file saved by an earlier load
    /// rather than repacked now.
    public var isFromPackedWeights: Bool { weights.isFromPackedFile }

    private init(
        file: GGUFFile, repacking: Bool, packedLocation: String?, kernels: KernelSetID, start: ContinuousClock.Instant
    ) throws {
        self.file = file
        kernelSet = kernels
        let reader = MetadataReader(metadata: file.metadata)
        architecture = try ArchitectureRegistry.architecture(named: try reader.string(GGUFKey.architecture))
        var config = try ModelConfig(architecture: architecture, reader: reader)
        weights = try ModelWeights(
            file: file, config: config, architecture: architecture, kernels: kernels,
            repackingWith: repacking ? ThreadPool.shared : nil,
            packed: packedLocation.flatMap { PackedWeightsFile(path: $0) })
        if let packedLocation, !weights.isFromPackedFile, !weights.packedMatrices.isEmpty {
            try? PackedWeightsFile.write(weights.packedMatrices, to: packedLocation)
        }
        // The output matrix decides how many logits there are (it may have padding rows).
        config.vocabularySize = weights.output.rows
        self.config = config
        tokenizer = try Tokenizer(gguf: file)
        chatTemplateSource = file.string(GGUFKey.chatTemplate)
        parsedTemplate = chatTemplateSource.map { source in Result { try ChatTemplate(source) } }
        file.releaseMetadataPages()  // the vocabulary and template are copied out
        loadDuration = ContinuousClock().now - start
    }

    /// Loads the GGUF file at `url` (see `init(path:repacking:packedWeightsDirectory:kernels:)`).
    public convenience init(
        contentsOf url: URL, repacking: Bool = true, packedWeightsDirectory: URL? = nil, kernels: KernelSetID? = nil
    ) throws {
        try self.init(
            path: url.path, repacking: repacking, packedWeightsDirectory: packedWeightsDirectory?.path, kernels: kernels
        )
    }

    /// Only the tokenizer of the GGUF file at `url` (no weights are checked or mapped for use).
    public static func tokenizer(contentsOf url: URL) throws -> Tokenizer {
        try Tokenizer(gguf: try GGUFFile(path: url.path))
    }

    /// The parsed chat template.
    ///
    /// - Throws: `InferenceError.missingChatTemplate`, or the template's parse error.
    public func chatTemplate() throws -> ChatTemplate {
        guard let parsedTemplate else { throw InferenceError.missingChatTemplate }
        return try parsedTemplate.get()
    }

    /// Renders `messages` (role/content pairs) with the model's chat template.
    ///
    /// ```swift
    /// let prompt = try model.renderChat([("system", "Be brief."), ("user", "Hi")])
    /// ```
    public func renderChat(_ messages: [(role: String, content: String)], addGenerationPrompt: Bool = true) throws
        -> String
    {
        let values: [TemplateValue] = messages.map { message in
            .object(TemplateObject([("role", .string(message.role)), ("content", .string(message.content))]))
        }
        return try chatTemplate().render(messages: values, tools: nil, addGenerationPrompt: addGenerationPrompt)
    }

    /// Bytes of weights read per decoded token (all matrices but the embedding table, plus the LM
    /// head), for bandwidth estimates.
    public var weightBytesPerToken: Int { weights.bytesPerToken }

    /// Whether the LM head is the embedding matrix.
    public var isOutputTied: Bool { weights.isOutputTied }
}

extension Model {
    /// The implementation of `kernelSet`.
    var kernels: any KernelSet.Type { KernelSelection.implementation(of: kernelSet)! }
}
