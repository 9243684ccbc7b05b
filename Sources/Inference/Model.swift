import ChatTemplates
import Foundation
import GGUF
import Kernels
import KernelsCore
import Tokenizers

/// A loaded model: its config, chat format (tokenizer, template) and memory-mapped weights.
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
    /// How the model reads a conversation: its chat template, tokenizer and BOS/EOS rules.
    public let chatFormat: ChatFormat
    /// The GGUF file the weights are mapped from.
    public let file: GGUFFile
    /// How long opening, checking and mapping took.
    public let loadDuration: Duration
    /// The kernel set every product and vector operation of this model runs on.
    public let kernelSet: KernelSetID

    let weights: ModelWeights
    let architecture: Architecture

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
    /// `chatFormat` is the file's format when the caller has already read it (the engine reads a
    /// model's header before its weights, to count tokens meanwhile), so the tokenizer and the
    /// template are built once per model; nil reads it from the file.
    ///
    /// - Throws: also `KernelSelectionError` when the set (or `SOTTO_KERNELS`) names one this CPU
    ///   cannot run.
    public convenience init(
        path: String, repacking: Bool = true, packedWeightsDirectory: String? = nil, kernels: KernelSetID? = nil,
        chatFormat: ChatFormat? = nil
    ) throws {
        let start = ContinuousClock().now
        let kernels = try kernels.map { try KernelSelection.resolve($0.rawValue) } ?? KernelSelection.resolve()
        let file = try GGUFFile(path: path)
        let location =
            repacking
            ? packedWeightsDirectory.flatMap {
                PackedWeightsFile.location(forModelAt: path, in: $0, kernels: kernels)
            } : nil
        try self.init(
            file: file, repacking: repacking, packedLocation: location, kernels: kernels, chatFormat: chatFormat,
            start: start)
    }

    /// Loads a model from an opened GGUF file (also used by tests with synthetic files).
    package convenience init(file: GGUFFile, repacking: Bool = true, kernels: KernelSetID? = nil) throws {
        let kernels = try kernels.map { try KernelSelection.resolve($0.rawValue) } ?? KernelSelection.resolve()
        try self.init(
            file: file, repacking: repacking, packedLocation: nil, kernels: kernels, chatFormat: nil,
            start: ContinuousClock().now)
    }

    /// Whether the weight matrices were mapped from a packed-weights file saved by an earlier load
    /// rather than repacked now.
    public var isFromPackedWeights: Bool { weights.isFromPackedFile }

    private init(
        file: GGUFFile, repacking: Bool, packedLocation: String?, kernels: KernelSetID, chatFormat: ChatFormat?,
        start: ContinuousClock.Instant
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
        self.chatFormat = try chatFormat ?? ChatFormat(file: file, tokenizer: Tokenizer(gguf: file))
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

    /// The model's own tokenizer, built from the GGUF metadata.
    public var tokenizer: Tokenizer { chatFormat.tokenizer }

    /// Renders `messages` (role/content pairs) with the model's chat template, as
    /// ``ChatFormat/text(messages:tools:addGenerationPrompt:)`` does (a leading BOS the tokenizer
    /// adds anyway is not in the text; ``ChatFormat/tokens(ofPrompt:)`` adds it).
    ///
    /// ```swift
    /// let prompt = try model.renderChat([("system", "Be brief."), ("user", "Hi")])
    /// ```
    public func renderChat(_ messages: [(role: String, content: String)], addGenerationPrompt: Bool = true) throws
        -> String
    {
        try chatFormat.text(
            messages: messages.map { ChatMessage(role: $0.role, content: $0.content).templateValue },
            addGenerationPrompt: addGenerationPrompt)
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
