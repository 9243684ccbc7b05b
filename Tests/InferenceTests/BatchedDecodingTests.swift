import Foundation
import TestSupport
import Testing
import Tokenizers

@testable import Inference

/// Batched decoding is one-at-a-time decoding, done together: the same logits (within the
/// kernels' tolerance) and the same greedy tokens for sequences of different lengths, sequences
/// joining and leaving mid-batch, a constrained one beside a free one, one cancelled among
/// others; prompts' shared starts read once; speculation (drafts copied from the sequence,
/// verified in the same pass) gives exactly the output without it.
@Suite(.serialized) struct BatchedDecodingTests {
    static func prompt(_ model: Model, _ user: String, system: String? = nil) throws -> [Int] {
        var messages = [ChatMessage(role: "user", content: user)]
        if let system { messages.insert(ChatMessage(role: "system", content: system), at: 0) }
        return try model.chatFormat.promptTokens(for: messages)
    }

    static func greedy(_ maxTokens: Int) -> DecodingOptions {
        DecodingOptions(maxTokens: maxTokens, sampling: .greedy, stopsAtEndOfGeneration: false)
    }

    /// The tokens of `request` run alone, without drafts.
    static func alone(_ model: Model, _ request: GenerationRequest) async throws -> [Int] {
        let engine = GenerationEngine(model: model, contextLength: 512, threadCount: 2, speculates: false)
        return try await tokens(of: engine.submit(request))
    }

    static func tokens(of handle: GenerationHandle) async throws -> [Int] {
        var tokens: [Int] = []
        for try await event in handle.events { if case .token(let id, _) = event { tokens.append(id) } }
        return tokens
    }

    @Test(.onTestThreads, arguments: ["smollm2-135m", "qwen2.5-coder-0.5b"])
    func oneForwardPassForSeveralSequencesGivesEachItsOwnLogits(_ id: String) throws {
        let model = try TestModels.model(id)
        let prompts = [
            try Self.prompt(model, "Hi."),
            try Self.prompt(model, "Name the planets of the solar system in order, please."),
            try Self.prompt(
                model, "Write one sentence about the history of Rome and one about the sea.", system: "Be brief."),
        ]
        // Each alone: the prompt but its last token, then the last token (its logits kept), and
        // for the longest the last three tokens one at a time.
        var solo: [[Float]] = []
        var evaluators: [Evaluator] = []
        for prompt in prompts {
            let evaluator = Evaluator(model: model, contextLength: 256, threadCount: 2)
            try evaluator.evaluate(Array(prompt.dropLast()))
            solo.append(snapshot(try evaluator.evaluate([prompt.last!])))
            evaluators.append(evaluator)
        }
        let long = prompts[2]
        let stepwise = Evaluator(model: model, contextLength: 256, threadCount: 2)
        try stepwise.evaluate(Array(long.dropLast(3)))
        var stepwiseRows: [[Float]] = []
        for token in long.suffix(3) { stepwiseRows.append(snapshot(try stepwise.evaluate([token]))) }

        // Together: the first two as one-row decode steps, the third as a three-row chunk with
        // every row's logits, over caches that hold what came before.
        let third = Evaluator(model: model, contextLength: 256, threadCount: 2)
        try third.evaluate(Array(long.dropLast(3)))
        let pass = ForwardPass(
            model: model, rowCapacity: 8, logitCapacity: 8, contextLength: 256, pool: ForwardPass.pool(threadCount: 2))
        let tokens = [prompts[0].last!, prompts[1].last!] + Array(long.suffix(3))
        let segments = [
            ForwardSegment(cache: evaluators[0].cache, start: prompts[0].count - 1, row: 0, count: 1, logits: .last),
            ForwardSegment(cache: evaluators[1].cache, start: prompts[1].count - 1, row: 1, count: 1, logits: .last),
            ForwardSegment(cache: third.cache, start: long.count - 3, row: 2, count: 3, logits: .all),
        ]
        tokens.withUnsafeBufferPointer { pass.run($0, segments) }
        var worst: Float = 0
        for (row, expected) in ([solo[0], solo[1]] + stepwiseRows).enumerated() {
            let batched = snapshot(pass.logits(row))
            worst = max(worst, maxAbsDifference(batched, expected))
            #expect(argmax(batched) == argmax(expected))
        }
        print("batched vs one at a time (\(id)): largest logit difference \(worst)")
        // The kernels' tolerance between a product's row alone and in a tile (as EvaluatorTests).
        #expect(worst < 1e-2)
    }

    @Test func sequencesJoiningAndLeavingMidBatchGetTheirOneAtATimeTokens() async throws {
        let model = try TestModels.model("smollm2-135m")
        let a = GenerationRequest(
            prompt: try Self.prompt(model, "Tell me a story about a fox."), options: Self.greedy(40))
        let b = GenerationRequest(prompt: try Self.prompt(model, "Hello!"), options: Self.greedy(8))
        let c = GenerationRequest(
            prompt: try Self.prompt(model, "List some fruits.", system: "You answer in lists."),
            options: Self.greedy(20))
        // A constrained sequence beside the free ones: only tokens of a few words, then the end.
        let words = model.tokenizer.encode(" yes no maybe")
        let d = GenerationRequest(
            prompt: try Self.prompt(model, "Answer yes or no."), options: Self.greedy(12),
            constraint: AllowedTokens(allowed: words, steps: 10))
        var expected: [[Int]] = []
        for request in [a, b, c, d] { expected.append(try await Self.alone(model, request)) }

        let engine = GenerationEngine(model: model, contextLength: 512, threadCount: 2, slotCount: 4, speculates: false)
        let handleA = engine.submit(a)
        let handleB = engine.submit(b)
        let handleD = engine.submit(d)
        // C joins once A is well under way (B has left by then: it has 8 tokens).
        var tokensA: [Int] = []
        var handleC: GenerationHandle?
        for try await event in handleA.events {
            guard case .token(let id, _) = event else { continue }
            tokensA.append(id)
            if tokensA.count == 15 { handleC = engine.submit(c) }
        }
        #expect(tokensA == expected[0])
        #expect(try await Self.tokens(of: handleB) == expected[1])
        #expect(try await Self.tokens(of: try #require(handleC)) == expected[2])
        #expect(try await Self.tokens(of: handleD) == expected[3])
        #expect(expected[3].allSatisfy(words.contains))
        _ = await engine.cachedPrompts  // the loop's last step is done
        #expect(engine.status.running == 0)
        #expect(engine.status.generatedTokens == 40 + 8 + 20 + expected[3].count)
    }

    @Test func backgroundWorkPausedForAPersonGoesOnWithItsOwnTokens() async throws {
        let model = try TestModels.model("smollm2-135m")
        let title = GenerationRequest(
            prompt: try Self.prompt(model, "Tell me a story about a fox."), options: Self.greedy(60),
            priority: .background)
        let question = GenerationRequest(
            prompt: try Self.prompt(model, "List some fruits."), options: Self.greedy(12))
        let expectedTitle = try await Self.alone(model, title)
        let expectedQuestion = try await Self.alone(model, question)

        let engine = GenerationEngine(model: model, contextLength: 512, threadCount: 2, slotCount: 4, speculates: false)
        let background = engine.submit(title)
        var titleTokens: [Int] = []
        var duringQuestion: Int?
        for try await event in background.events {
            guard case .token(let id, _) = event else { continue }
            titleTokens.append(id)
            guard titleTokens.count == 5 else { continue }
            // The question runs to its end while the title sits out (a step already in flight
            // when it arrived, or the statistics' lag, may count one or two of the title's).
            let before = engine.status.generatedTokens
            #expect(try await Self.tokens(of: engine.submit(question)) == expectedQuestion)
            _ = await engine.cachedPrompts  // the step that ended the question is recorded
            duringQuestion = engine.status.generatedTokens - before - expectedQuestion.count
        }
        #expect(titleTokens == expectedTitle)
        let during = try #require(duringQuestion)
        #expect(during <= 2, "the title generated \(during) tokens while the question ran")
    }

    @Test func cancellingOneMemberLeavesTheOthersTokensAsTheyWere() async throws {
        let model = try TestModels.model("smollm2-135m")
        let kept = GenerationRequest(prompt: try Self.prompt(model, "Describe a forest."), options: Self.greedy(30))
        let expected = try await Self.alone(model, kept)
        let engine = GenerationEngine(model: model, contextLength: 512, threadCount: 2, slotCount: 3, speculates: false)
        let stopped = engine.submit(
            GenerationRequest(prompt: try Self.prompt(model, "Count to a hundred."), options: Self.greedy(200)))
        let handle = engine.submit(kept)
        var seen = 0
        for try await event in stopped.events {
            if case .token = event { seen += 1 }
            if seen == 5 { stopped.cancel() }
        }
        let summary = try #require(await stopped.completion())
        #expect(summary.reason == .cancelled)
        #expect(summary.generatedTokens < 10)
        #expect(try await Self.tokens(of: handle) == expected)
    }

    @Test func aSharedStartIsEvaluatedOnceAndCopied() async throws {
        let model = try TestModels.model("smollm2-135m")
        let system = String(repeating: "You are a careful assistant who answers in one short sentence. ", count: 6)
        let first = GenerationRequest(
            prompt: try Self.prompt(model, "What is rain?", system: system), options: Self.greedy(6))
        let second = GenerationRequest(
            prompt: try Self.prompt(model, "What is snow?", system: system), options: Self.greedy(6))
        let shared = SlotTable.sharedPrefix(first.prompt, second.prompt)
        #expect(shared > 60)
        let expected = [try await Self.alone(model, first), try await Self.alone(model, second)]
        let engine = GenerationEngine(model: model, contextLength: 512, threadCount: 2, slotCount: 4, speculates: false)
        let handles = [engine.submit(first), engine.submit(second)]
        var reused: [Int] = []
        var tokens: [[Int]] = []
        for handle in handles {
            var ids: [Int] = []
            for try await event in handle.events {
                switch event {
                case .promptProcessed(_, let count, _): reused.append(count)
                case .token(let id, _): ids.append(id)
                default: break
                }
            }
            tokens.append(ids)
        }
        #expect(tokens == expected)
        // The second took the shared start from the first's slot instead of evaluating it.
        #expect(reused[0] == 0)
        #expect(reused[1] >= shared)
    }

    /// Prompt lookup: a proofreading answer repeats its draft, so most tokens come from drafts;
    /// the output is exactly the output without them, greedy and sampled (the same draws).
    @Test(arguments: [SamplingOptions.greedy, SamplingOptions(temperature: 0.7, topK: 40, seed: 11)])
    func speculationGivesTheSameTokensAsPlainDecoding(sampling: SamplingOptions) async throws {
        let model = try TestModels.model("qwen2.5-coder-0.5b")
        let draft =
            "hey team, the client moved the launch to march 3 so we have two extra weeks. priya will redo the slides "
            + "and i will send the new budget by thursday. lets meet monday at 10 to go over it"
        let prompt = try Self.prompt(
            model, "Fix the capitals and punctuation of this text and write it out in full:\n\n" + draft,
            system: "You proofread text. Answer with the corrected text only.")
        let request = GenerationRequest(
            prompt: prompt, options: DecodingOptions(maxTokens: 80, sampling: sampling, stopsAtEndOfGeneration: true))
        let plain = try await Self.alone(model, request)
        let engine = GenerationEngine(model: model, contextLength: 512, threadCount: 2, speculates: true)
        let handle = engine.submit(request)
        let speculated = try await Self.tokens(of: handle)
        let summary = try #require(await handle.completion())
        print(
            "speculation: \(summary.generatedTokens) tokens in \(summary.forwardSteps) steps, drafted \(summary.draftedTokens), accepted \(summary.acceptedDraftTokens)"
        )
        #expect(speculated == plain)
        #expect(summary.draftedTokens > 0)
        if sampling.isGreedy {
            #expect(summary.acceptedDraftTokens > 0)
            #expect(summary.forwardSteps < summary.generatedTokens)
        }
    }
}

/// Only `allowed` tokens for `steps` tokens, then the output is complete.
private struct AllowedTokens: TokenConstraint {
    let allowed: [Int]
    var steps: Int
    mutating func forcedTokens() -> [Int] { [] }
    mutating func restrict(_ mask: inout TokenMask) -> Bool {
        mask.removeAll()
        for token in allowed { mask.insert(token) }
        return true
    }
    mutating func accept(_ token: Int) throws {
        precondition(allowed.contains(token))
        steps -= 1
    }
    var isComplete: Bool { steps <= 0 }
}
