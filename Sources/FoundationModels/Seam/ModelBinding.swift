import Synchronization

/// A session's model with its types erased: its capabilities, and its executor (created on
/// first use, once per configuration in the process).
package struct ModelBinding: Sendable {
    /// The model.
    package let model: any LanguageModel
    package let capabilities: LanguageModelCapabilities
    private let makeExecutor: @Sendable () throws -> ErasedExecutor

    package init<Model: LanguageModel>(_ model: Model) {
        self.model = model
        capabilities = model.capabilities
        let configuration = model.executorConfiguration
        makeExecutor = {
            let executor: Model.Executor = try ExecutorCache.executor(for: configuration)
            return ErasedExecutor(
                respond: { request, channel in
                    try await executor.respond(to: request, model: model, streamingInto: channel)
                },
                prewarm: { transcript in executor.prewarm(model: model, transcript: transcript) })
        }
    }

    /// The model's executor.
    ///
    /// - Throws: what the executor's `init(configuration:)` throws.
    package func executor() throws -> ErasedExecutor {
        try makeExecutor()
    }

    /// Throws ``LanguageModelError/unsupportedCapability(_:)`` for the first capability
    /// `request` needs that the model lacks: tool calling for enabled tools, guided generation
    /// for a schema, vision for an image anywhere in the transcript, reasoning for a reasoning
    /// level.
    package func checkCapabilities(for request: LanguageModelExecutorGenerationRequest) throws {
        func require(_ capability: LanguageModelCapabilities.Capability, _ why: String) throws {
            guard !capabilities.contains(capability) else { return }
            throw LanguageModelError.unsupportedCapability(
                .init(
                    capability: capability,
                    debugDescription:
                        "The model \(type(of: model)) cannot \(why): it lacks the \(capability) capability."
                ))
        }
        if !request.enabledToolDefinitions.isEmpty {
            try require(.toolCalling, "call the session's tools (\(request.enabledToolDefinitions.map(\.name)))")
        }
        if let schema = request.schema { try require(.guidedGeneration, "generate \(schema.name) by its schema") }
        if request.transcript.contains(where: \.hasAttachment) { try require(.vision, "read images") }
        if request.contextOptions.reasoningLevel != nil { try require(.reasoning, "reason") }
    }
}

/// An executor behind closures.
package struct ErasedExecutor: Sendable {
    package let respond:
        @Sendable (LanguageModelExecutorGenerationRequest, LanguageModelExecutorGenerationChannel) async throws -> Void
    package let prewarm: @Sendable (Transcript) -> Void
}

/// One executor per configuration (and executor type) for the whole process, as the
/// configuration's `Hashable` conformance asks for.
enum ExecutorCache {
    private struct Key: Hashable, @unchecked Sendable {
        // @unchecked Sendable: the configuration inside the AnyHashable is Sendable (the
        // protocol requires it); AnyHashable itself just does not say so.
        let type: ObjectIdentifier
        let configuration: AnyHashable
    }

    private static let executors = Mutex<[Key: any Sendable]>([:])

    static func executor<Executor: LanguageModelExecutor>(for configuration: Executor.Configuration) throws -> Executor
    {
        let key = Key(type: ObjectIdentifier(Executor.self), configuration: AnyHashable(configuration))
        if let known = executors.withLock({ $0[key] }) as? Executor { return known }
        // Created outside the lock: an executor's initializer is the app's code.
        let created = try Executor(configuration: configuration)
        return executors.withLock { executors in
            if let raced = executors[key] as? Executor { return raced }
            executors[key] = created
            return created
        }
    }
}

extension Transcript.Entry {
    /// Whether the entry holds an attachment segment.
    package var hasAttachment: Bool {
        segments.contains { if case .attachment = $0 { true } else { false } }
    }
}
