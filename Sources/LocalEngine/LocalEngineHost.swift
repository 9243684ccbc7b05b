import Executors
import Foundation
import FoundationModels
import ModelStore
import Synchronization

/// Sotto's engine in this process, behind the seam every system model uses
/// (`SystemModelEngine`): the engine service (`sotto engine`) runs its requests on it, and
/// Sotto's own server installs it with `SystemLanguageModel.runInProcess(on:)` so that its
/// sessions run without a socket.
///
/// Models load in the background, once per file (``ModelRegistry``); a request waits for the
/// load it needs, and nothing else does: token counts need only the model's header, and the
/// context size only its metadata. What blocks runs on threads made for it (``EngineThreads``,
/// each model's ``Inference/GenerationEngine``, the OCR thread); callers await it suspended.
package final class LocalEngineHost: SystemModelEngine {
    /// The engine of this process, keeping repacked weights in the data directory's cache.
    package static let shared = LocalEngineHost(
        registry: ModelRegistry(packedWeightsDirectory: ModelStore().packedWeightsDirectory.path))

    package let registry: ModelRegistry
    private let runtimes = Mutex<[SystemModelTarget: Task<ModelRuntime, any Error>]>([:])
    /// The runtimes whose load has finished, for what is asked of every engine at once.
    private let ready = Mutex<[ModelRuntime]>([])

    package init(registry: ModelRegistry) {
        self.registry = registry
    }

    /// The runtime for `model`, loading the model if it is not loaded.
    package func runtime(for model: SystemModelTarget) async throws -> ModelRuntime {
        let task = runtimes.withLock { runtimes in
            if let task = runtimes[model] { return task }
            let registry = self.registry
            let task = Task(executorPreference: EngineThreads.preparation) { [self] in
                let runtime = ModelRuntime(
                    loaded: try await registry.model(path: model.path), contextSize: model.contextSize)
                ready.withLock { $0.append(runtime) }
                return runtime
            }
            runtimes[model] = task
            return task
        }
        do {
            return try await task.value
        } catch {
            // A failed load is not kept: the next request tries again (the registry knows
            // whether the file changed).
            runtimes.withLock { runtimes in if runtimes[model] == task { runtimes[model] = nil } }
            throw error
        }
    }

    package func respond(
        to request: LanguageModelExecutorGenerationRequest, model: SystemModelTarget,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        let images = try await ImageReader.contexts(for: request.transcript)
        try Task.checkCancellation()
        let runtime = try await runtime(for: model)
        try Task.checkCancellation()
        try await runtime.respond(to: request, images: images, streamingInto: channel)
    }

    package func prewarm(model: SystemModelTarget, transcript: Transcript) {
        // Nothing in it blocks (the load, OCR and the prompt's evaluation run on their own
        // threads); the preference keeps its own few steps off the cooperative pool too.
        Task(executorPreference: EngineThreads.preparation, priority: .utility) { [self] in
            guard let runtime = try? await runtime(for: model),
                let images = try? await ImageReader.contexts(for: transcript)
            else { return }
            await runtime.prewarm(LanguageModelExecutorGenerationRequest(transcript: transcript), images: images)
        }
    }

    package func tokenCount(_ subject: TokenCountSubject, model: SystemModelTarget) async throws -> Int {
        let header: ModelHeader
        do {
            header = try await registry.header(path: model.path)
        } catch {
            throw LanguageModelSession.GenerationError.assetsUnavailable(
                .init(debugDescription: "The model file \(model.path) could not be read: \(error)"))
        }
        let renderer = header.renderer
        switch subject {
        case .segments(let segments):
            let images = try await ImageReader.contexts(
                for: Transcript(entries: [.prompt(Transcript.Prompt(segments: segments))]))
            return renderer.tokenCount(of: images.text(of: segments))
        case .tools(let tools):
            let text = tools.map { tool in
                GeneratedContent(properties: [
                    "name": tool.name, "description": tool.description,
                    "parameters": tool.parameters.jsonSchema(includeOrder: false),
                ]).jsonString
            }.joined(separator: "\n")
            return renderer.tokenCount(of: text)
        case .schema(let schema):
            return renderer.tokenCount(of: LanguageModelExecutorGenerationRequest.schemaInstruction(for: schema))
        case .transcript(let transcript):
            let images = try await ImageReader.contexts(for: transcript)
            return try renderer.tokens(
                for: LanguageModelExecutorGenerationRequest(transcript: transcript), images: images
            )
            .count
        }
    }

    package func contextSize(of model: SystemModelTarget) -> Int? {
        registry.contextLength(path: model.path).map { min($0, model.contextSize) }
    }

    package func state(of model: SystemModelTarget) -> EngineModelState {
        registry.state(path: model.path)
    }

    package func observeStates(_ handler: @escaping @Sendable () -> Void) -> EngineObservation {
        registry.observeStates(handler)
    }

    package var unreachableReason: String? { nil }

    /// Requests with staleness key `key` so far, on every loaded model, are no longer wanted.
    package func markStale(key: String) {
        for runtime in ready.withLock({ $0 }) { runtime.markStale(key: key) }
    }

    /// What each loaded model's engine is doing.
    package var statuses: [EngineStatus] { ready.withLock { $0 }.map(\.status) }
}
