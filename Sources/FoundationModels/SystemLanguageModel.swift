import Foundation
import ModelStore
import Observation
import Synchronization

/// The language model a session uses: on Linux, a local GGUF model run by Sotto's engine.
///
/// ```swift
/// switch SystemLanguageModel.default.availability {
/// case .available:
///     let session = LanguageModelSession()
/// case .unavailable(.modelNotReady):
///     print("Download the model first: sotto model pull")
/// case .unavailable(let reason):
///     print("Unavailable: \(reason)")
/// }
/// ```
///
/// `default` uses the model `SOTTO_MODEL` names (a catalog id such as `qwen2.5-coder-1.5b`, or
/// the path of a `.gguf` file), or `qwen2.5-coder-1.5b` when it is not set, in the data
/// directory `SOTTO_HOME` names (`~/.sotto` by default), as `ModelStore` resolves names for every
/// `sotto` command. Pick another model with ``init(model:contextSize:useCase:guardrails:)``.
public final class SystemLanguageModel: Sendable, Observable {
    /// The model `SOTTO_MODEL` configures, for general use.
    public static let `default` = SystemLanguageModel()

    /// What the model is used for.
    public let useCase: UseCase
    /// The guardrails it applies (a no-op on Linux: there is no safety model).
    public let guardrails: Guardrails

    private enum Engine: Sendable {
        /// A local model, loaded on first use.
        case local(LocalModel?, contextSize: Int?)
        /// An engine given directly (tests, embedding).
        case backend(any LanguageModelBackend)
    }

    private let engine: Engine
    private let loaded = Mutex<(any LanguageModelBackend)?>(nil)

    /// The context window when none is requested, as on Apple's on-device model.
    package static let defaultContextSize = 4096

    /// A model for a use case, with guardrails.
    public convenience init(useCase: UseCase = .general, guardrails: Guardrails = .default) {
        self.init(engine: .local(nil, contextSize: nil), useCase: useCase, guardrails: guardrails)
    }

    /// A specific local model (Sotto's own initializer).
    ///
    /// - Parameter contextSize: the context window in tokens; nil for 4,096 like Apple's model.
    ///   It is capped at what the model was trained for.
    public convenience init(
        model: LocalModel, contextSize: Int? = nil, useCase: UseCase = .general, guardrails: Guardrails = .default
    ) {
        self.init(engine: .local(model, contextSize: contextSize), useCase: useCase, guardrails: guardrails)
    }

    /// A model backed by `backend` directly.
    package convenience init(
        backend: any LanguageModelBackend, useCase: UseCase = .general, guardrails: Guardrails = .default
    ) {
        self.init(engine: .backend(backend), useCase: useCase, guardrails: guardrails)
    }

    private init(engine: Engine, useCase: UseCase, guardrails: Guardrails) {
        self.engine = engine
        self.useCase = useCase
        self.guardrails = guardrails
    }

    /// Whether the model can be used now, and if not, why. Checking does not load the model.
    public var availability: Availability {
        switch engine {
        case .backend: return .available
        case .local(let model, _):
            return Self.availability(
                of: LocalModel.resolve(model, in: ModelStore()), physicalMemory: ProcessInfo.processInfo.physicalMemory)
        }
    }

    /// Whether ``availability`` is `.available`.
    public var isAvailable: Bool { availability == .available }

    /// The context window in tokens: instructions, transcript, prompt and response together.
    public var contextSize: Int {
        switch engine {
        case .backend(let backend): return backend.contextSize
        case .local(_, let requested):
            if let backend = loaded.withLock({ $0 }) { return backend.contextSize }
            return requested ?? Self.defaultContextSize
        }
    }

    /// The engine, loading the model on first use.
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/assetsUnavailable(_:)`` when the model is
    ///   unavailable or cannot be loaded.
    package func backend() throws -> any LanguageModelBackend {
        switch engine {
        case .backend(let backend):
            return backend
        case .local(let model, let requested):
            return try loaded.withLock { loaded in
                if let loaded { return loaded }
                let store = ModelStore()
                let file: ModelFile
                switch LocalModel.resolve(model, in: store) {
                case .success(let found): file = found
                case .failure(let error):
                    throw LanguageModelSession.GenerationError.assetsUnavailable(
                        .init(debugDescription: error.description))
                }
                let backend = try EngineBackendFactory.makeBackend(
                    modelPath: file.path, contextSize: requested ?? Self.defaultContextSize,
                    packedWeightsDirectory: store.packedWeightsDirectory.path)
                loaded = backend
                return backend
            }
        }
    }

    /// The availability a resolved model has on a machine with `physicalMemory` bytes.
    package static func availability(
        of resolution: Result<ModelFile, ModelStoreError>, physicalMemory: UInt64
    ) -> Availability {
        switch resolution {
        case .failure(.turnedOff): return .unavailable(.appleIntelligenceNotEnabled)
        case .failure: return .unavailable(.modelNotReady)
        case .success(let file):
            // Weights are memory-mapped and must stay resident; leave room for the KV cache,
            // activations and the rest of the system.
            let needed = UInt64(file.size) + 512 * 1024 * 1024
            return physicalMemory >= needed ? .available : .unavailable(.deviceNotEligible)
        }
    }
}

extension SystemLanguageModel {
    /// Whether a model can be used.
    @frozen public enum Availability: Equatable, Sendable {
        /// Ready.
        case available
        /// Not usable, for `reason`.
        case unavailable(UnavailableReason)

        /// Why a model is unavailable.
        public enum UnavailableReason: Equatable, Sendable, Hashable {
            /// The machine does not have what the model needs (memory).
            case deviceNotEligible
            /// Turned off by configuration (`SOTTO_MODEL=off`).
            case appleIntelligenceNotEnabled
            /// The model file is not on disk (not downloaded yet, or `SOTTO_MODEL` names a
            /// missing file or an unknown id).
            case modelNotReady
        }
    }

    /// What a model is used for.
    public struct UseCase: Sendable, Equatable {
        private let name: String

        /// General-purpose prompting.
        public static let general = UseCase(name: "general")
        /// Tagging and extracting content (topics, entities, actions).
        public static let contentTagging = UseCase(name: "contentTagging")
    }

    /// Checks applied to the input and output of a model.
    public struct Guardrails: Sendable {
        private let name: String

        /// All guardrails on.
        public static let `default` = Guardrails(name: "default")
        /// Fewer refusals when transforming content the user provides.
        public static let permissiveContentTransformations = Guardrails(name: "permissiveContentTransformations")
    }

    /// The languages the model understands well.
    public var supportedLanguages: Set<Locale.Language> {
        Set(Self.languageIdentifiers.map { Locale.Language(identifier: $0) })
    }

    /// Whether the model supports the language of `locale`.
    public func supportsLocale(_ locale: Locale = Locale.current) -> Bool {
        guard let code = locale.language.languageCode?.identifier else { return false }
        return Self.languageIdentifiers.contains { $0.hasPrefix(code) }
    }

    /// The languages of Apple's on-device model, which the default models also handle.
    private static let languageIdentifiers = [
        "en", "da", "nl", "fr", "de", "it", "nb", "pt", "es", "sv", "tr", "zh-Hans", "zh-Hant", "ja", "ko", "vi",
    ]
}

// MARK: - Token counts

extension SystemLanguageModel {
    /// The number of tokens a prompt takes.
    public func tokenCount(for prompt: some PromptRepresentable) async throws -> Int {
        try await backend().tokenCount(for: prompt.promptRepresentation.text)
    }

    /// The number of tokens instructions take.
    public func tokenCount(for instructions: Instructions) async throws -> Int {
        try await backend().tokenCount(for: instructions.text)
    }

    /// The number of tokens the definitions of `tools` take.
    public func tokenCount(for tools: [any Tool]) async throws -> Int {
        let text = tools.map { tool in
            GeneratedContent(properties: [
                "name": tool.name, "description": tool.description,
                "parameters": tool.parameters.jsonSchema(includeOrder: false),
            ]).jsonString
        }.joined(separator: "\n")
        return try await backend().tokenCount(for: text)
    }

    /// The number of tokens a schema takes in the prompt.
    public func tokenCount(for schema: GenerationSchema) async throws -> Int {
        try await backend().tokenCount(for: GenerationRequest.schemaInstruction(for: schema))
    }

    /// The number of tokens transcript entries take, rendered as the model sees them.
    public func tokenCount(for transcriptEntries: some Collection<Transcript.Entry>) async throws -> Int {
        try await backend().promptTokenCount(for: GenerationRequest(transcript: Transcript(entries: transcriptEntries)))
    }
}
