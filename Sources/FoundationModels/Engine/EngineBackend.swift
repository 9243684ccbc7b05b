import Guidance
import Inference
import Tokenizers

/// The backend that runs requests on a local GGUF model with Sotto's engine.
///
/// - Prompts are rendered with the model's own chat template (tools and tool calls in its own
///   format) and tokenized with its own tokenizer.
/// - Each request runs on a KV-cache slot that already holds the longest prefix of its prompt
///   (``SlotPool``), so a follow-up turn only prefills its new tokens.
/// - A response with a schema is generated under the schema's grammar (``GrammarConstraint``);
///   a turn that may call tools is steered by ``TurnConstraint``, which generates the calls'
///   JSON under the grammar of the tools' arguments.
package final class EngineBackend: LanguageModelBackend {
    package let contextSize: Int
    package let loaded: LoadedModel
    private let pool: SlotPool

    /// KV-cache slots per backend: conversations that can stay cached side by side.
    package static let slotCapacity = 4

    /// A backend for the model at `path`, with a context window of `contextSize` tokens (capped
    /// at the model's own), keeping repacked weights in `packedWeightsDirectory` (nil: no cache).
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/assetsUnavailable(_:)`` when the model
    ///   cannot be loaded.
    package init(modelPath path: String, contextSize: Int, packedWeightsDirectory: String? = nil) throws {
        precondition(contextSize > 0, "contextSize must be positive")
        loaded = try LoadedModel.shared(path: path, packedWeightsDirectory: packedWeightsDirectory)
        self.contextSize = min(contextSize, loaded.model.config.contextLength)
        pool = SlotPool(model: loaded.model, contextLength: self.contextSize, capacity: Self.slotCapacity)
    }

    package func tokenCount(for text: String) async throws -> Int {
        loaded.model.tokenizer.encode(text, parseSpecial: false).count
    }

    package func promptTokenCount(for request: GenerationRequest) async throws -> Int {
        try loaded.renderer.tokens(for: request).count
    }

    package func prewarm(_ request: GenerationRequest) async {
        guard let prompt = try? loaded.renderer.tokens(for: request), prompt.count < contextSize else { return }
        _ = loaded.vocabularyIndex
        let lease = await pool.acquire(for: prompt)
        let cached = try? await lease.session.withEvaluator { evaluator in
            _ = try evaluator.prepare(prompt: prompt)
            return evaluator.cachedTokens
        }
        await pool.release(lease, cachedTokens: cached ?? [])
    }

    package func generate(
        _ request: GenerationRequest, onText: @escaping @Sendable (String) -> Void
    ) async throws -> GenerationOutput {
        let prompt = try loaded.renderer.tokens(for: request)
        guard prompt.count < contextSize else {
            throw LanguageModelSession.GenerationError.exceededContextWindowSize(
                .init(
                    debugDescription:
                        "Content contains \(prompt.count) tokens, which exceeds the maximum allowed context size of \(contextSize)"
                ))
        }
        let limit = request.options.responseTokenLimit(available: contextSize - prompt.count)
        var output = try await run(request, prompt: prompt, limit: limit, allowsCalls: true, onText: onText)
        if case .toolCalls(let calls) = output.content, Self.repeatsAnsweredCalls(calls, in: request.transcript) {
            // Small models may call the same tool with the same arguments again and again: its
            // output is already there, so the model answers instead.
            let answer = try await run(request, prompt: prompt, limit: limit, allowsCalls: false, onText: onText)
            output = GenerationOutput(
                content: answer.content, promptTokenCount: output.promptTokenCount,
                cachedTokenCount: output.cachedTokenCount,
                outputTokenCount: output.outputTokenCount + answer.outputTokenCount)
        }
        return output
    }

    /// Generates one turn on a KV slot.
    private func run(
        _ request: GenerationRequest, prompt: [Int], limit: Int, allowsCalls: Bool,
        onText: @escaping @Sendable (String) -> Void
    ) async throws -> GenerationOutput {
        let plan = try TurnPlan(request: request, loaded: loaded, budget: limit, allowsCalls: allowsCalls)
        let options = DecodingOptions(maxTokens: limit, sampling: request.options.samplingOptions)

        let lease = await pool.acquire(for: prompt)
        var collector = TurnCollector(tokenizer: loaded.model.tokenizer, calling: plan.calling)
        var summary: GenerationSummary?
        var failure: (any Error)?
        do {
            for try await event in lease.session.generate(prompt: prompt, options: options, constraint: plan.constraint)
            {
                switch event {
                case .token(let id, _):
                    let piece = collector.take(id)
                    if !piece.isEmpty { onText(piece) }
                case .finished(let finished):
                    summary = finished
                case .promptProcessed, .text:
                    break
                }
            }
        } catch {
            failure = error
        }
        let cached = (try? await lease.session.withEvaluator { $0.cachedTokens }) ?? []
        await pool.release(lease, cachedTokens: cached)
        if let failure { throw Self.generationError(for: failure) }
        try Task.checkCancellation()
        guard let summary, summary.reason != .cancelled else { throw CancellationError() }

        let tail = collector.finish()
        if !tail.isEmpty { onText(tail) }
        if summary.reason == .contextFull
            || (summary.reason == .maxTokens && request.options.maximumResponseTokens == nil)
        {
            throw LanguageModelSession.GenerationError.exceededContextWindowSize(
                .init(
                    debugDescription:
                        "The response ran out of context after \(summary.generatedTokens) tokens (prompt \(prompt.count) tokens, context \(contextSize))"
                ))
        }
        return GenerationOutput(
            content: try Self.content(of: collector), promptTokenCount: prompt.count,
            cachedTokenCount: summary.reusedTokens,
            outputTokenCount: summary.generatedTokens)
    }

    /// Whether every one of `calls` repeats a call (same tool, same arguments) already answered
    /// since the request's prompt.
    package static func repeatsAnsweredCalls(_ calls: [Transcript.ToolCall], in transcript: Transcript) -> Bool {
        let start = transcript.entries.lastIndex { if case .prompt = $0 { true } else { false } } ?? 0
        var answeredIDs: Set<String> = []
        var made: [(id: String, key: String)] = []
        for entry in transcript.entries[start...] {
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

    /// What the turn produced: its tool calls, or its text.
    private static func content(of collector: TurnCollector) throws -> GenerationOutput.Content {
        guard collector.isCall else { return .text(collector.text) }
        let (finished, unfinished) = collector.callTexts
        if finished.isEmpty, let unfinished {
            throw LanguageModelSession.GenerationError.decodingFailure(
                .init(debugDescription: "The model's tool call was cut off: \(unfinished)"))
        }
        return .toolCalls(try finished.map(ToolCallFormat.parseCall))
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
    init(request: GenerationRequest, loaded: LoadedModel, budget: Int, allowsCalls: Bool) throws {
        do {
            let responseSchema = try request.schema?.guidanceSchema()
            let tokenizer = loaded.model.tokenizer
            if let format = loaded.toolFormat, allowsCalls, !request.tools.isEmpty {
                let callSchema = try ToolCallFormat.callSchema(for: request.tools)
                let callGrammar = try Grammar.shared(for: callSchema)
                // A structured answer may also be a bare call: generate under both grammars.
                let answerGrammar = try responseSchema.map { try Grammar.shared(for: .anyOf([$0, callSchema])) }
                let index = loaded.vocabularyIndex
                constraint = TurnConstraint(
                    format: format, answerGrammar: answerGrammar, callGrammar: callGrammar, index: index,
                    tokenizer: tokenizer,
                    budget: budget)
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
