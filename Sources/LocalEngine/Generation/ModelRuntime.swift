import Executors
import Foundation
import FoundationModels
import Guidance
import Inference
import Synchronization
import Tokenizers

/// One model file run with one context size: the KV-cache slots and what requests on it share.
///
/// - Prompts are rendered with the model's own chat template (tools and tool calls in its own
///   format) and tokenized with its own tokenizer; an image is the context ``ImageReader``
///   writes for it.
/// - Requests run on the model's ``Inference/GenerationEngine``, the one owner of its KV-cache
///   slots, on a thread of its own: each request takes the slot that already holds the longest
///   prefix of its prompt, so a follow-up turn only prefills its new tokens.
/// - A response with a schema is generated under the schema's grammar (``GrammarConstraint``);
///   a turn that may call tools is steered by ``TurnConstraint``, which generates the calls'
///   JSON under the grammar of the tools' arguments.
/// - What the model writes goes into the request's channel as it comes: text with its token
///   count, then the tool calls, then the usage. When the request's task is cancelled the
///   engine stops at the next token, the slot is released, and the usage of what was generated
///   is still sent before `CancellationError` is thrown.
package final class ModelRuntime: Sendable {
    package let contextSize: Int
    package let loaded: LoadedModel
    private let engine: GenerationEngine
    private let tokenObservers = Mutex<[Int: @Sendable (Int) -> Void]>([:])

    /// KV-cache slots per runtime: requests that run at once, and conversations kept cached
    /// between turns (a team's open conversations; a slot's cache takes memory only as it fills:
    /// 57 KB a position for the 1.5B model).
    package static let slotCapacity = 16

    /// A runtime for `loaded` with a context window of `contextSize` tokens (capped at the
    /// model's own).
    package init(loaded: LoadedModel, contextSize: Int) {
        precondition(contextSize > 0, "contextSize must be positive")
        self.loaded = loaded
        self.contextSize = min(contextSize, loaded.model.config.contextLength)
        engine = GenerationEngine(
            model: loaded.model, contextLength: self.contextSize, slotCount: Self.slotCapacity,
            speculates: EngineScheduling.speculationIsOn)
    }

    /// Calls `handler` with the running count of a turn's generated tokens, as each arrives
    /// (for measuring how soon a cancelled request stops).
    package func observeTokens(_ handler: @escaping @Sendable (Int) -> Void) -> EngineObservation {
        let id = Int.random(in: 0..<Int.max)
        tokenObservers.withLock { $0[id] = handler }
        return EngineObservation { [weak self] in _ = self?.tokenObservers.withLock { $0.removeValue(forKey: id) } }
    }

    /// The tokens each KV slot's cache holds (for tests: whether a prewarm has been read).
    package var slotCaches: [[Int]] {
        get async { await engine.cachedPrompts }
    }

    /// The prompt tokens of `request`.
    package func promptTokens(
        for request: LanguageModelExecutorGenerationRequest, images: ImageContexts = ImageContexts()
    ) throws -> [Int] {
        try loaded.renderer.tokens(for: request, images: images)
    }

    /// Reads `request`'s prompt into a slot ahead of time (the response is not generated).
    package func prewarm(_ request: LanguageModelExecutorGenerationRequest, images: ImageContexts = ImageContexts())
        async
    {
        guard let prompt = try? promptTokens(for: request, images: images), prompt.count < contextSize else { return }
        // The constrained decoder's index is built once, off the cooperative threads.
        let loaded = loaded
        await EngineThreads.preparation.run { _ = loaded.vocabularyIndex }
        // The engine skips a prompt a slot already holds (a session prewarmed again, or by
        // several callers).
        await engine.prewarm(prompt: prompt, priority: EngineScheduling(metadata: request.metadata).priority)
    }

    /// Requests with staleness key `key` so far are no longer wanted (see ``EngineScheduling``).
    package func markStale(key: String) { engine.markStale(key: key) }

    /// What the model's engine is doing.
    package var status: EngineStatus { engine.status }

    /// Generates the model's next turn for `request` into `channel`.
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/exceededContextWindowSize(_:)`` when the
    ///   prompt does not fit or the response runs out of context, other `GenerationError`s for
    ///   what the engine reports, `CancellationError` when the task is cancelled.
    package func respond(
        to request: LanguageModelExecutorGenerationRequest, images: ImageContexts,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        let prompt = try promptTokens(for: request, images: images)
        guard prompt.count < contextSize else {
            throw LanguageModelSession.GenerationError.exceededContextWindowSize(
                .init(
                    debugDescription:
                        "Content contains \(prompt.count) tokens, which exceeds the maximum allowed context size of \(contextSize)"
                ))
        }
        let limit = request.generationOptions.responseTokenLimit(available: contextSize - prompt.count)
        var turn = try await run(request, prompt: prompt, limit: limit, allowsCalls: true, into: channel)
        if case .toolCalls(let calls) = turn.content, Self.repeatsAnsweredCalls(calls, in: request.transcript) {
            // Small models may call the same tool with the same arguments again and again: its
            // output is already there, so the model answers instead.
            let answer = try await run(request, prompt: prompt, limit: limit, allowsCalls: false, into: channel)
            turn = Turn(
                content: answer.content, cachedTokenCount: turn.cachedTokenCount,
                outputTokenCount: turn.outputTokenCount + answer.outputTokenCount)
        }
        if case .toolCalls(let calls) = turn.content {
            for call in calls {
                let arguments = call.arguments.jsonString
                await channel.send(
                    .toolCalls(
                        action: .toolCall(
                            id: call.id, name: call.toolName,
                            action: .appendArguments(arguments, tokenCount: 0))))
            }
        }
        await channel.send(
            .response(
                action: .updateUsage(
                    input: .init(totalTokenCount: prompt.count, cachedTokenCount: turn.cachedTokenCount),
                    output: .init(totalTokenCount: turn.outputTokenCount, reasoningTokenCount: 0))))
    }

    /// What one generation on a slot produced.
    private struct Turn {
        enum Content {
            case text
            case toolCalls([Transcript.ToolCall])
        }

        var content: Content
        var cachedTokenCount: Int
        var outputTokenCount: Int
    }

    /// Generates one turn on a KV slot; response text goes into `channel` as it comes.
    private func run(
        _ request: LanguageModelExecutorGenerationRequest, prompt: [Int], limit: Int, allowsCalls: Bool,
        into channel: LanguageModelExecutorGenerationChannel
    ) async throws -> Turn {
        // Grammars and the vocabulary index take a moment to build the first time: not on a
        // cooperative thread.
        let loaded = loaded
        let plan = try await EngineThreads.preparation.run {
            try TurnPlan(request: request, loaded: loaded, budget: limit, allowsCalls: allowsCalls)
        }
        let options = DecodingOptions(maxTokens: limit, sampling: request.generationOptions.samplingOptions)
        let observers = tokenObservers.withLock { Array($0.values) }

        let scheduling = EngineScheduling(metadata: request.metadata)
        let handle = engine.submit(
            GenerationRequest(
                prompt: prompt, options: options, constraint: plan.constraint, priority: scheduling.priority,
                user: scheduling.user, stalenessKey: scheduling.stalenessKey))
        var collector = TurnCollector(tokenizer: loaded.model.tokenizer, calling: plan.calling)
        var summary: GenerationSummary?
        var failure: (any Error)?
        var tail = ""
        var received = 0
        var unsent = 0
        do {
            // The handler stops the engine within a token, on the thread that cancels, even
            // while this task waits to be scheduled.
            try await withTaskCancellationHandler {
                for try await event in handle.events {
                    switch event {
                    case .token(let id, let text):
                        received += 1
                        unsent += 1
                        observers.forEach { $0(received) }
                        let piece = collector.take(id, text: text)
                        if !piece.isEmpty {
                            await channel.send(.response(action: .appendText(piece, tokenCount: unsent)))
                            unsent = 0
                        }
                    case .text(let text):
                        tail += text
                    case .finished(let finished):
                        summary = finished
                    case .promptProcessed:
                        break
                    }
                }
            } onCancel: {
                handle.cancel()
            }
        } catch {
            failure = error
        }
        if let failure { throw Self.generationError(for: failure) }
        if Task.isCancelled || summary == nil || summary?.reason == .cancelled {
            // What the engine generated, including tokens that came after this task stopped
            // reading: it says so once it has given the slot back (at most a token after the stop).
            let generated = max(received, await handle.completion()?.generatedTokens ?? 0)
            await channel.send(
                .response(
                    action: .updateUsage(
                        input: .init(totalTokenCount: prompt.count, cachedTokenCount: 0),
                        output: .init(totalTokenCount: generated, reasoningTokenCount: 0))))
            throw CancellationError()
        }
        guard let summary else { throw CancellationError() }

        let rest = collector.finish(tail: tail)
        if !rest.isEmpty { await channel.send(.response(action: .appendText(rest, tokenCount: unsent))) }
        if summary.reason == .contextFull
            || (summary.reason == .maxTokens && request.generationOptions.maximumResponseTokens == nil)
        {
            throw LanguageModelSession.GenerationError.exceededContextWindowSize(
                .init(
                    debugDescription:
                        "The response ran out of context after \(summary.generatedTokens) tokens (prompt \(prompt.count) tokens, context \(contextSize))"
                ))
        }
        let content: Turn.Content =
            collector.isCall ? .toolCalls(try Self.calls(of: collector).map(Self.identified)) : .text
        return Turn(
            content: content, cachedTokenCount: summary.reusedTokens, outputTokenCount: summary.generatedTokens)
    }

    private static func identified(_ call: Transcript.ToolCall) -> Transcript.ToolCall {
        Transcript.ToolCall(id: UUID().uuidString, toolName: call.toolName, arguments: call.arguments)
    }

    /// Whether every one of `calls` repeats a call (same tool, same arguments) already answered
    /// since the request's prompt.
    package static func repeatsAnsweredCalls(_ calls: [Transcript.ToolCall], in transcript: Transcript) -> Bool {
        let start = transcript.lastIndex { if case .prompt = $0 { true } else { false } } ?? 0
        var answeredIDs: Set<String> = []
        var made: [(id: String, key: String)] = []
        for entry in transcript[start...] {
            switch entry {
            case .toolCalls(let earlier):
                made += earlier.map { ($0.id, $0.toolName + " " + $0.arguments.jsonString) }
            case .toolOutput(let output):
                answeredIDs.insert(output.id)
            default:
                break
            }
        }
        let answered = Set(made.filter { answeredIDs.contains($0.id) }.map(\.key))
        return !calls.isEmpty && calls.allSatisfy { answered.contains($0.toolName + " " + $0.arguments.jsonString) }
    }

    /// The fewest bytes a response following `schema` can have (a lower bound for
    /// `maximumResponseTokens` is this many tokens or fewer).
    package func minimumResponseBytes(for schema: GenerationSchema) throws -> Int {
        do {
            let grammar = try Grammar.shared(for: try schema.guidanceSchema())
            return TokenMatcher(grammar: grammar, index: loaded.vocabularyIndex).minimumBytesToComplete
        } catch let error as GuidanceError {
            throw error.asGenerationError
        }
    }

    /// The tool calls of a turn that called tools.
    private static func calls(of collector: TurnCollector) throws -> [Transcript.ToolCall] {
        let (finished, unfinished) = collector.callTexts
        if finished.isEmpty, let unfinished {
            throw LanguageModelSession.GenerationError.decodingFailure(
                .init(debugDescription: "The model's tool call was cut off: \(unfinished)"))
        }
        return try finished.map(ToolCallFormat.parseCall)
    }

    /// An engine error as the API reports it.
    static func generationError(for error: any Error) -> any Error {
        switch error {
        case let error as LanguageModelSession.GenerationError:
            return error
        case is CancellationError:
            return error
        case let error as InferenceError:
            switch error {
            case .promptTooLong, .contextFull:
                return LanguageModelSession.GenerationError.exceededContextWindowSize(
                    .init(debugDescription: error.description))
            default:
                return LanguageModelSession.GenerationError.decodingFailure(
                    .init(debugDescription: "The engine failed: \(error)"))
            }
        case let error as GuidanceError:
            return LanguageModelSession.GenerationError.decodingFailure(
                .init(debugDescription: "Constrained decoding failed: \(error)"))
        default:
            return error
        }
    }
}

/// How one turn is steered: the constraint, and how tool calls look when they are possible.
struct TurnPlan {
    var constraint: (any TokenConstraint)?
    var calling: (format: ToolCallFormat, grammar: Grammar, index: VocabularyIndex)?

    /// - Parameter allowsCalls: whether the turn may call the request's tools.
    init(request: LanguageModelExecutorGenerationRequest, loaded: LoadedModel, budget: Int, allowsCalls: Bool) throws {
        do {
            let responseSchema = try request.schema?.guidanceSchema()
            let tokenizer = loaded.model.tokenizer
            if let format = loaded.toolFormat, allowsCalls, !request.enabledToolDefinitions.isEmpty {
                let callSchema = try ToolCallFormat.callSchema(for: request.enabledToolDefinitions)
                let callGrammar = try Grammar.shared(for: callSchema)
                // A structured answer may also be a bare call: generate under both grammars.
                let answerGrammar = try responseSchema.map { try Grammar.shared(for: .anyOf([$0, callSchema])) }
                let index = loaded.vocabularyIndex
                constraint = TurnConstraint(
                    format: format, answerGrammar: answerGrammar, callGrammar: callGrammar, index: index,
                    tokenizer: tokenizer,
                    budget: budget, requiresCall: Self.requiresCall(request))
                calling = (format, callGrammar, index)
            } else if let responseSchema {
                constraint = GrammarConstraint(
                    grammar: try Grammar.shared(for: responseSchema), index: loaded.vocabularyIndex,
                    tokenizer: tokenizer,
                    budget: budget)
            } else if let format = loaded.toolFormat, !PromptRenderer.renderedTools(for: request).isEmpty {
                // The model is shown tools it may not call now.
                constraint = ExcludedTokensConstraint(tokens: [format.openToken, format.closeToken])
            }
        } catch let error as GuidanceError {
            throw error.asGenerationError
        }
    }
}

extension TurnPlan {
    /// Whether the turn must call a tool: under `ToolCallingMode.required`, until the tools
    /// have answered once in this response.
    static func requiresCall(_ request: LanguageModelExecutorGenerationRequest) -> Bool {
        guard request.generationOptions.toolCallingMode?.kind == .required else { return false }
        let start = request.transcript.lastIndex { if case .prompt = $0 { true } else { false } } ?? 0
        return !request.transcript[start...].contains { if case .toolOutput = $0 { true } else { false } }
    }
}

/// Free text without some tokens.
struct ExcludedTokensConstraint: TokenConstraint {
    let tokens: [Int]
    let isComplete = false

    func forcedTokens() -> [Int] { [] }

    func restrict(_ mask: inout TokenMask) -> Bool {
        for token in tokens where token < mask.vocabularySize { mask.remove(token) }
        return true
    }

    func accept(_ token: Int) throws {}
}
