import Synchronization
import TestSupport
import Testing
import Tokenizers

@testable import Inference

/// Everything a generation streamed.
private struct Collected {
    var prompt: (tokens: Int, reused: Int)?
    var tokens: [Int] = []
    var text = ""
    var summary: GenerationSummary?
}

private func collect(_ stream: AsyncThrowingStream<GenerationEvent, any Error>) async throws -> Collected {
    var result = Collected()
    for try await event in stream {
        switch event {
        case .promptProcessed(let tokens, let reused, _):
            #expect(result.prompt == nil && result.tokens.isEmpty, "prompt event comes first, once")
            result.prompt = (tokens, reused)
        case .token(let id, let text):
            #expect(result.summary == nil)
            result.tokens.append(id)
            result.text += text
        case .text(let text):
            result.text += text
        case .finished(let summary):
            #expect(result.summary == nil)
            result.summary = summary
        }
    }
    return result
}

/// Forces a fixed sequence of tokens, then declares the output complete.
private struct ForcedSequence: TokenConstraint {
    var remaining: [Int]
    var accepted: [Int] = []
    mutating func forcedTokens() -> [Int] { remaining.isEmpty ? [] : [remaining.removeFirst()] }
    mutating func restrict(_ mask: inout TokenMask) -> Bool { false }
    mutating func accept(_ token: Int) throws { accepted.append(token) }
    var isComplete: Bool { remaining.isEmpty && !accepted.isEmpty }
}

/// `rounds` times: one sampled token (only `sampled` allowed), then `forced` forced; then complete.
private struct SampledThenForced: TokenConstraint {
    let sampled: Int
    let forced: [Int]
    var rounds: Int
    var pending: [Int] = []
    mutating func forcedTokens() -> [Int] {
        defer { pending = [] }
        return pending
    }
    mutating func restrict(_ mask: inout TokenMask) -> Bool {
        for w in mask.words.indices { mask.words[w] = 0 }
        mask.insert(sampled)
        return true
    }
    mutating func accept(_ token: Int) throws {
        if token == sampled, pending.isEmpty {
            pending = forced
            rounds -= 1
        }
    }
    var isComplete: Bool { rounds == 0 && pending.isEmpty }
}

/// Allows only `allowed` for `steps` tokens, then only `end`.
private struct MaskThenEnd: TokenConstraint {
    let allowed: [Int]
    let end: Int
    var steps: Int
    mutating func forcedTokens() -> [Int] { [] }
    mutating func restrict(_ mask: inout TokenMask) -> Bool {
        for w in mask.words.indices { mask.words[w] = 0 }
        if steps > 0 {
            for token in allowed { mask.insert(token) }
        } else {
            mask.insert(end)
        }
        return true
    }
    mutating func accept(_ token: Int) throws { steps -= 1 }
    var isComplete: Bool { false }
}

/// Allows only even token ids, checking sampled tokens one at a time when `checks` is set.
private final class EvenTokens: TokenConstraint, @unchecked Sendable {
    // @unchecked Sendable: used by one generation at a time, on the session's queue.
    let checks: Bool
    var masks = 0
    var checked = 0
    init(checks: Bool) { self.checks = checks }
    func forcedTokens() -> [Int] { [] }
    var checksSingleTokens: Bool { checks }
    func canAccept(_ token: Int) -> Bool {
        checked += 1
        return token % 2 == 0
    }
    func restrict(_ mask: inout TokenMask) -> Bool {
        masks += 1
        for w in mask.words.indices { mask.words[w] &= 0x5555_5555_5555_5555 }
        return true
    }
    func accept(_ token: Int) throws { precondition(token % 2 == 0) }
    var isComplete: Bool { false }
}

@Suite(.serialized) struct GenerationTests {
    @Test func sampledTokensAreCheckedBeforeMasking() async throws {
        let model = try TestModels.model("smollm2-135m")
        let prompt = Self.prompt(model, "Write a poem.")
        let options = DecodingOptions(maxTokens: 12, sampling: .greedy, stopsAtEndOfGeneration: false)
        let masking = EvenTokens(checks: false)
        let checking = EvenTokens(checks: true)
        let a = try await collect(
            GenerationEngine(model: model, contextLength: 256, threadCount: 2).generate(
                prompt: prompt, options: options, constraint: masking))
        let b = try await collect(
            GenerationEngine(model: model, contextLength: 256, threadCount: 2).generate(
                prompt: prompt, options: options, constraint: checking))
        // Greedy: the fast path picks exactly what masking first picks.
        #expect(a.tokens == b.tokens)
        #expect(a.tokens.count == 12 && a.tokens.allSatisfy { $0 % 2 == 0 })
        #expect(masking.masks == 12 && masking.checked == 0)
        #expect(checking.checked == 12 && checking.masks < 12)
    }

    static func prompt(_ model: Model, _ user: String) -> [Int] {
        model.tokenizer.encode("<|im_start|>user\n\(user)<|im_end|>\n<|im_start|>assistant\n", parseSpecial: true)
    }

    @Test func stopsAtTheTokenLimitAndStreamsText() async throws {
        let model = try TestModels.model("smollm2-135m")
        let session = GenerationEngine(model: model, contextLength: 512, threadCount: 2)
        let prompt = Self.prompt(model, "Write a long story about a dragon.")
        let result = try await collect(
            session.generate(prompt: prompt, options: DecodingOptions(maxTokens: 7, sampling: .greedy)))
        #expect(result.prompt?.tokens == prompt.count)
        #expect(result.prompt?.reused == 0)
        #expect(result.tokens.count == 7)
        #expect(result.summary?.reason == .maxTokens)
        #expect(result.summary?.generatedTokens == 7)
        #expect(result.text == model.tokenizer.decode(result.tokens))
    }

    @Test func stopsAtEndOfGenerationWithoutEmittingIt() async throws {
        let model = try TestModels.model("qwen2.5-coder-0.5b")
        let session = GenerationEngine(model: model, contextLength: 512, threadCount: 2)
        let imEnd = try #require(model.tokenizer.tokenID(for: "<|im_end|>"))
        let words = model.tokenizer.encode(" yes no maybe")
        let constraint = MaskThenEnd(allowed: words, end: imEnd, steps: 3)
        let result = try await collect(
            session.generate(
                prompt: Self.prompt(model, "Answer."), options: DecodingOptions(maxTokens: 50, sampling: .greedy),
                constraint: constraint))
        #expect(result.tokens.count == 3)
        #expect(result.tokens.allSatisfy(words.contains))
        #expect(result.summary?.reason == .endOfGeneration(token: imEnd))
        #expect(!result.text.contains("<|im_end|>"))
    }

    @Test func naturalEndOfGeneration() async throws {
        // llama.cpp answers this prompt with "The capital of France is Paris." and <|im_end|>, with
        // every greedy choice ahead of the runner-up by more than 3.8 logits (see the fixture).
        let model = try TestModels.model("qwen2.5-coder-0.5b")
        let fixture = try LlamaFixture.load("qwen2.5-coder-0.5b")
        let question = try #require(fixture.cases.first { $0.name == "question" })
        let session = GenerationEngine(model: model, contextLength: 512, threadCount: 2)
        let result = try await collect(
            session.generate(prompt: question.prompt, options: DecodingOptions(maxTokens: 100, sampling: .greedy)))
        guard case .endOfGeneration(let token) = result.summary?.reason else {
            Issue.record("expected an end-of-generation stop, got \(String(describing: result.summary?.reason))")
            return
        }
        #expect(model.tokenizer.endOfGenerationTokenIDs.contains(token))
        #expect(result.text == "The capital of France is Paris.")
    }

    @Test func forcedTokensAreAppendedWithoutSampling() async throws {
        let model = try TestModels.model("smollm2-135m")
        let session = GenerationEngine(model: model, contextLength: 512, threadCount: 2)
        let forced = model.tokenizer.encode("{\"answer\": 42}")
        let result = try await collect(
            session.generate(
                prompt: Self.prompt(model, "Reply in JSON."),
                options: DecodingOptions(maxTokens: 50, sampling: .greedy),
                constraint: ForcedSequence(remaining: forced)))
        #expect(result.tokens == forced)
        #expect(result.text == "{\"answer\": 42}")
        #expect(result.summary?.reason == .constraintComplete)
    }

    @Test func tokensForcedAfterASampledOneShareItsForwardPass() async throws {
        let model = try TestModels.model("smollm2-135m")
        // Without drafts, which would verify the repeated pattern in fewer passes still.
        let session = GenerationEngine(model: model, contextLength: 512, threadCount: 2, speculates: false)
        let sampled = model.tokenizer.encode("\"")[0]
        let forced = model.tokenizer.encode(", \"")
        let result = try await collect(
            session.generate(
                prompt: Self.prompt(model, "List three words."),
                options: DecodingOptions(maxTokens: 50, sampling: .greedy),
                constraint: SampledThenForced(sampled: sampled, forced: forced, rounds: 3)))
        #expect(result.tokens == Array(repeating: [sampled] + forced, count: 3).flatMap { $0 })
        #expect(result.summary?.reason == .constraintComplete)
        // Three passes (each sampled token with what follows it), not six.
        #expect(result.summary?.forwardSteps == 3)
    }

    @Test func seededSamplingIsReproducible() async throws {
        let model = try TestModels.model("smollm2-135m")
        let options = DecodingOptions(
            maxTokens: 20, sampling: SamplingOptions(temperature: 1.2, topK: 50, seed: 2024))
        let prompt = Self.prompt(model, "Tell me a joke.")
        let a = try await collect(
            GenerationEngine(model: model, contextLength: 256, threadCount: 2).generate(
                prompt: prompt, options: options))
        let b = try await collect(
            GenerationEngine(model: model, contextLength: 256, threadCount: 2).generate(
                prompt: prompt, options: options))
        #expect(a.tokens.count == 20)
        #expect(a.tokens == b.tokens)
    }

    @Test func secondTurnReusesTheCachedConversation() async throws {
        let model = try TestModels.model("smollm2-135m")
        let session = GenerationEngine(model: model, contextLength: 512, threadCount: 2)
        let first = Self.prompt(model, "Name a colour.")
        let reply = try await collect(
            session.generate(prompt: first, options: DecodingOptions(maxTokens: 30, sampling: .greedy)))
        // The next prompt replays the reply and adds a turn; everything up to the reply is cached.
        let next =
            first + reply.tokens
            + model.tokenizer.encode(
                "<|im_end|>\n<|im_start|>user\nAnother one.<|im_end|>\n<|im_start|>assistant\n",
                parseSpecial: true)
        let second = try await collect(
            session.generate(prompt: next, options: DecodingOptions(maxTokens: 5, sampling: .greedy)))
        #expect(second.prompt?.reused ?? 0 >= first.count + reply.tokens.count - 1)
        #expect(second.summary?.reusedTokens == second.prompt?.reused)
    }

    @Test func cancellationStopsGeneration() async throws {
        let model = try TestModels.model("smollm2-135m")
        let session = GenerationEngine(model: model, contextLength: 4096, threadCount: 2)
        let prompt = Self.prompt(model, "Count to ten thousand.")
        let seen = Atomic<Int>(0)
        let task = Task {
            for try await event in session.generate(
                prompt: prompt, options: DecodingOptions(maxTokens: 3000, sampling: .greedy))
            {
                if case .token = event { seen.add(1, ordering: .relaxed) }
            }
        }
        // Wait for the first tokens, but not forever: a generation that never starts fails the test.
        let deadline = ContinuousClock.now + .seconds(60)
        while seen.load(ordering: .relaxed) < 3 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        task.cancel()
        _ = await task.result
        try #require(seen.load(ordering: .relaxed) >= 3, "fewer than 3 tokens within 60 s")
        // The session's queue is free again, and the cache stopped growing near the cancel point.
        let cached = await session.cachedPrompts[0].count
        #expect(cached < prompt.count + 200)
    }

    @Test func droppingTheStreamStopsGeneration() async throws {
        let model = try TestModels.model("smollm2-135m")
        let session = GenerationEngine(model: model, contextLength: 4096, threadCount: 2)
        let prompt = Self.prompt(model, "Count to ten thousand.")
        var count = 0
        for try await event in session.generate(
            prompt: prompt, options: DecodingOptions(maxTokens: 3000, sampling: .greedy))
        {
            if case .token = event { count += 1 }
            if count == 2 { break }
        }
        let cached = await session.cachedPrompts[0].count
        #expect(cached < prompt.count + 200)
    }

    @Test func promptTooLongIsAnErrorOnTheStream() async throws {
        let model = try TestModels.model("smollm2-135m")
        let session = GenerationEngine(model: model, contextLength: 32, threadCount: 1)
        let prompt = Array(repeating: 42, count: 40)
        await #expect(throws: InferenceError.promptTooLong(tokens: 40, contextLength: 32)) {
            _ = try await collect(session.generate(prompt: prompt, options: DecodingOptions(maxTokens: 5)))
        }
    }

    @Test func fullContextEndsGeneration() async throws {
        let model = try TestModels.model("smollm2-135m")
        let session = GenerationEngine(model: model, contextLength: 24, threadCount: 1)
        let prompt = Self.prompt(model, "Write a long story.")
        let result = try await collect(
            session.generate(
                prompt: prompt,
                options: DecodingOptions(maxTokens: 100, sampling: .greedy, stopsAtEndOfGeneration: false)))
        #expect(result.summary?.reason == .contextFull)
        #expect(prompt.count + result.tokens.count <= 25)
    }
}
