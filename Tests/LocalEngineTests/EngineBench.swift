import Dispatch
import Foundation
import FoundationModels
import Guidance
import Inference
import LocalEngine
import TestSupport
import Testing
import Tokenizers

/// Figures for `scripts/bench-structured`: decode speed with and without constrained decoding on
/// the same prompt, and the time the constraint takes per sampled token (mask fill, budget
/// steering and the copy into the engine's mask). Prints, never asserts speed. Runs only when
/// SOTTO_BENCH=1.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["SOTTO_BENCH"] == "1"), .serialized)
struct EngineBench {
    @Generable
    struct Replies {
        @Guide(description: "Eight short replies the user could send", .count(8))
        var replies: [String]
        @Guide(description: "The tone of the replies")
        var tone: Tone
    }

    @Generable
    enum Tone {
        case friendly, formal, playful
    }

    /// Each constraint call of one generation, timed.
    final class TimedConstraint: TokenConstraint, @unchecked Sendable {
        let inner: GrammarConstraint
        var maskNanoseconds: [UInt64] = []
        var forcedCount = 0

        init(_ inner: GrammarConstraint) { self.inner = inner }

        var isComplete: Bool { inner.isComplete }

        func forcedTokens() -> [Int] {
            let tokens = inner.forcedTokens()
            forcedCount += tokens.count
            return tokens
        }

        func restrict(_ mask: inout TokenMask) -> Bool {
            let start = DispatchTime.now().uptimeNanoseconds
            let restricted = inner.restrict(&mask)
            maskNanoseconds.append(DispatchTime.now().uptimeNanoseconds - start)
            return restricted
        }

        func accept(_ token: Int) throws { try inner.accept(token) }
    }

    struct Run {
        var tokens: Int
        var tokensPerSecond: Double
        var text: String
    }

    @Test func smollm2_135m() async throws { try await compare("smollm2-135m") }
    @Test func qwen2_5_coder_0_5b() async throws { try await compare("qwen2.5-coder-0.5b") }
    @Test func qwen2_5_coder_1_5b() async throws { try await compare("qwen2.5-coder-1.5b") }

    func compare(_ id: String) async throws {
        let path = try RealModels.path(id)
        let backend = ModelRuntime(
            loaded: try await LocalEngineHost.shared.registry.model(path: path), contextSize: 1024)
        let loaded = backend.loaded
        let vocabularyStart = ContinuousClock.now
        let index = loaded.vocabularyIndex
        let indexTime = ContinuousClock.now - vocabularyStart
        let schema = Replies.generationSchema
        let request = LanguageModelExecutorGenerationRequest(
            transcript: Transcript(entries: [
                .prompt(
                    Transcript.Prompt(segments: [
                        .text(.init(content: "Suggest replies to: 'Are you coming to the party tonight?'"))
                    ]))
            ]), schema: schema)
        let prompt = try loaded.renderer.tokens(for: request)
        let grammar = try Grammar.shared(for: try schema.guidanceSchema())
        let session = GenerationEngine(model: loaded.model, contextLength: 1024)
        // As in a request without maximumResponseTokens: the rest of the context.
        let budget = 1024 - prompt.count

        func constrained() async throws -> (Run, TimedConstraint) {
            let constraint = TimedConstraint(
                GrammarConstraint(grammar: grammar, index: index, tokenizer: loaded.model.tokenizer, budget: budget))
            let run = try await generate(
                session, prompt, DecodingOptions(maxTokens: budget, sampling: .greedy),
                constraint: constraint)
            return (run, constraint)
        }
        func free(_ count: Int) async throws -> Run {
            try await generate(
                session, prompt,
                DecodingOptions(maxTokens: count, sampling: .greedy, stopsAtEndOfGeneration: false),
                constraint: nil)
        }

        let (cold, coldTimer) = try await constrained()
        var freeRuns = [try await free(cold.tokens)]
        let (warm, warmTimer) = try await constrained()
        freeRuns.append(try await free(cold.tokens))
        let freeBest = freeRuns.map(\.tokensPerSecond).max() ?? 0

        print(
            "structured \(id): vocabulary \(loaded.model.tokenizer.vocabularySize) tokens, index built in \(Self.format(indexTime)), grammar \(grammar.stateCount) states"
        )
        print(
            "structured \(id): free \(Self.rate(freeBest)) tok/s | constrained cold \(Self.rate(cold.tokensPerSecond)) tok/s, warm \(Self.rate(warm.tokensPerSecond)) tok/s (\(warm.tokens) tokens, \(warmTimer.forcedCount) forced) | ratio warm/free \(String(format: "%.2f", warm.tokensPerSecond / freeBest))×"
        )
        print(
            "structured \(id): mask per sampled token cold \(Self.summary(coldTimer.maskNanoseconds)), warm \(Self.summary(warmTimer.maskNanoseconds))"
        )
        print("structured \(id): output \(warm.text)")
        #expect(try GeneratedContent(json: warm.text + "\n").isComplete)
    }

    private func generate(
        _ session: GenerationEngine, _ prompt: [Int], _ options: DecodingOptions,
        constraint: (any TokenConstraint)?
    ) async throws -> Run {
        var text = ""
        var summary: GenerationSummary?
        for try await event in session.generate(prompt: prompt, options: options, constraint: constraint) {
            switch event {
            case .token(_, let piece): text += piece
            case .text(let piece): text += piece
            case .finished(let finished): summary = finished
            case .promptProcessed: break
            }
        }
        let finished = try #require(summary)
        return Run(tokens: finished.generatedTokens, tokensPerSecond: finished.decodeTokensPerSecond, text: text)
    }

    static func rate(_ value: Double) -> String { String(format: "%.1f", value) }

    static func format(_ duration: Duration) -> String {
        String(
            format: "%.0f ms",
            Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
    }

    /// Average and 99th percentile in microseconds.
    static func summary(_ nanoseconds: [UInt64]) -> String {
        guard !nanoseconds.isEmpty else { return "n/a" }
        let sorted = nanoseconds.sorted()
        let average = Double(sorted.reduce(0, +)) / Double(sorted.count) / 1000
        let p99 = Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]) / 1000
        return String(format: "avg %.1f µs, p99 %.1f µs (%d steps)", average, p99, sorted.count)
    }
}
