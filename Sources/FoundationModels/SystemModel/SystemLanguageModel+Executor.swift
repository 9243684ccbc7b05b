extension SystemLanguageModel: LanguageModel {
    /// Guided generation and tool calling; vision as the text in an image (Sotto's engine reads
    /// images with OCR, see `docs/Porting.md`).
    public var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities(capabilities: [.guidedGeneration, .toolCalling, .vision])
    }

    public var executorConfiguration: Executor.Configuration { Executor.Configuration() }

    /// Runs a system model's requests on its backend's engine: the engine service through the
    /// engine client the `FoundationModels` product links, or the engine in this process.
    public struct Executor: LanguageModelExecutor {
        public typealias Model = SystemLanguageModel

        /// Every system model shares one executor: the model it is given says which file to run.
        public struct Configuration: Hashable, Sendable {
            package init() {}
        }

        public init(configuration: Configuration) {}

        public func prewarm(model: SystemLanguageModel, transcript: Transcript) {
            guard let backend = model.backend, let target = try? model.target() else { return }
            backend.engine.prewarm(model: target, transcript: transcript)
        }

        nonisolated(nonsending) public func respond(
            to request: LanguageModelExecutorGenerationRequest, model: SystemLanguageModel,
            streamingInto channel: LanguageModelExecutorGenerationChannel
        ) async throws {
            let target = try model.target()
            let engine = try model.requireBackend().engine
            if let reason = engine.unreachableReason {
                throw LanguageModelSession.GenerationError.assetsUnavailable(.init(debugDescription: reason))
            }
            try await engine.respond(to: request, model: target, streamingInto: channel)
        }
    }
}

// MARK: - Token counts

extension SystemLanguageModel {
    /// The number of tokens a prompt takes.
    nonisolated(nonsending) public func tokenCount(for prompt: some PromptRepresentable) async throws -> Int {
        try await tokenCount(.segments(prompt.promptRepresentation.segments))
    }

    /// The number of tokens instructions take.
    nonisolated(nonsending) public func tokenCount(for instructions: Instructions) async throws -> Int {
        try await tokenCount(.segments(instructions.segments))
    }

    /// The number of tokens the definitions of `tools` take.
    nonisolated(nonsending) public func tokenCount(for tools: [any Tool]) async throws -> Int {
        try await tokenCount(.tools(tools.map { Transcript.ToolDefinition(tool: $0) }))
    }

    /// The number of tokens a schema takes in the prompt.
    nonisolated(nonsending) public func tokenCount(for schema: GenerationSchema) async throws -> Int {
        try await tokenCount(.schema(schema))
    }

    /// The number of tokens transcript entries take, rendered as the model sees them.
    nonisolated(nonsending) public func tokenCount(
        for transcriptEntries: some Collection<Transcript.Entry>
    ) async throws -> Int {
        try await tokenCount(.transcript(Transcript(entries: transcriptEntries)))
    }

    nonisolated(nonsending) private func tokenCount(_ subject: TokenCountSubject) async throws -> Int {
        try await requireBackend().engine.tokenCount(subject, model: target())
    }
}
