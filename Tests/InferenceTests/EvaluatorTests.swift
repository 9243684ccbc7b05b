import TestSupport
import Testing

@testable import Inference

@Suite(.serialized) struct EvaluatorTests {
    static let prefix =
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nWhat is two plus two?<|im_end|>\n"

    @Test(.onTestThreads, arguments: ["smollm2-135m", "qwen2.5-coder-0.5b"])
    func prefixReuseEvaluatesOnlyTheSuffixAndMatchesAFreshEvaluation(_ id: String) throws {
        let model = try TestModels.model(id)
        let tokenizer = model.tokenizer
        let first = tokenizer.encode(Self.prefix + "<|im_start|>assistant\nFour.<|im_end|>\n", parseSpecial: true)
        let second = tokenizer.encode(
            Self.prefix + "<|im_start|>assistant\nFour.<|im_end|>\n<|im_start|>user\nAnd three plus three?<|im_end|>\n",
            parseSpecial: true)
        #expect(Array(second.prefix(first.count)) == first)

        let reusing = Evaluator(model: model, contextLength: 512, threadCount: 2)
        #expect(try reusing.prepare(prompt: first).reused == 0)
        let (reused, logits) = try reusing.prepare(prompt: second)
        #expect(reused == first.count)
        #expect(reusing.cachedTokens == second)
        let reusedLogits = snapshot(logits)

        let fresh = Evaluator(model: model, contextLength: 512, threadCount: 2)
        let freshLogits = snapshot(try fresh.prepare(prompt: second).logits)
        // Same rows through the same kernels: equal up to float summation order in the kernels.
        #expect(maxAbsDifference(reusedLogits, freshLogits) < 1e-3)
        #expect(argmax(reusedLogits) != nil)

        // The same prompt again reuses everything and costs nothing.
        let again = try reusing.prepare(prompt: second)
        #expect(again.reused == second.count)
        #expect(snapshot(again.logits) == reusedLogits)

        // A prompt that diverges early keeps only the common part.
        let other = tokenizer.encode("<|im_start|>user\nHello<|im_end|>\n", parseSpecial: true)
        let partial = try reusing.prepare(prompt: other)
        #expect(partial.reused < other.count)
        #expect(reusing.cachedTokens == other)
    }

    @Test(.onTestThreads) func chunkedPrefillMatchesTokenByTokenDecoding() throws {
        let model = try TestModels.model("smollm2-135m")
        let text = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 30)
        let tokens = model.tokenizer.encode(text)
        #expect(tokens.count > Evaluator.prefillChunk, "the prompt must span several prefill chunks")

        let batched = Evaluator(model: model, contextLength: 1024, threadCount: 2)
        let batchLogits = snapshot(try batched.evaluate(tokens))
        let stepwise = Evaluator(model: model, contextLength: 1024, threadCount: 2)
        var stepLogits: [Float] = []
        for token in tokens { stepLogits = snapshot(try stepwise.evaluate([token])) }
        #expect(maxAbsDifference(batchLogits, stepLogits) < 1e-2)
        #expect(
            argmax(batchLogits)
                == argmax(stepLogits))
    }

    @Test(.onTestThreads) func promptLongerThanTheContextFailsBeforeAnyWork() throws {
        let model = try TestModels.model("smollm2-135m")
        let evaluator = Evaluator(model: model, contextLength: 16, threadCount: 1)
        let prompt = Array(repeating: 42, count: 17)
        #expect(throws: InferenceError.promptTooLong(tokens: 17, contextLength: 16)) {
            try evaluator.prepare(prompt: prompt)
        }
        #expect(evaluator.cachedTokens.isEmpty)
    }

    @Test(.onTestThreads) func evaluatingPastTheContextFailsAndKeepsTheCache() throws {
        let model = try TestModels.model("smollm2-135m")
        let evaluator = Evaluator(model: model, contextLength: 16, threadCount: 1)
        try evaluator.evaluate(Array(repeating: 42, count: 10))
        #expect(throws: InferenceError.contextFull(position: 10, adding: 7, contextLength: 16)) {
            try evaluator.evaluate(Array(repeating: 43, count: 7))
        }
        #expect(evaluator.cachedTokens.count == 10)
        try evaluator.evaluate(Array(repeating: 43, count: 6))
        #expect(evaluator.cachedTokens.count == 16)
    }

    @Test(.onTestThreads) func invalidInputIsRejected() throws {
        let model = try TestModels.model("smollm2-135m")
        let evaluator = Evaluator(model: model, contextLength: 64, threadCount: 1)
        #expect(throws: InferenceError.invalidToken(49_152, position: 1, vocabularySize: 49_152)) {
            try evaluator.evaluate([1, 49_152])
        }
        #expect(throws: InferenceError.invalidToken(-1, position: 0, vocabularySize: 49_152)) {
            try evaluator.evaluate([-1])
        }
        #expect(throws: InferenceError.emptyInput) { try evaluator.evaluate([]) }
        #expect(evaluator.cachedTokens.isEmpty)
    }

    @Test(.onTestThreads) func contextIsCappedAtTheModelsAndDefaultsTo4096() throws {
        let model = try TestModels.model("smollm2-135m")
        #expect(Evaluator(model: model, contextLength: 1_000_000, threadCount: 1).contextLength == 8192)
        let evaluator = Evaluator(model: model, threadCount: 1)
        #expect(evaluator.contextLength == 4096)
        // 30 layers × 3 KV heads × 64 × 4096 positions × 2 (K and V) × 4 bytes.
        #expect(evaluator.cacheByteCount == 30 * 3 * 64 * 4096 * 2 * 4)
    }

    @Test(.onTestThreads) func truncateAndResetForgetPositions() throws {
        let model = try TestModels.model("smollm2-135m")
        let evaluator = Evaluator(model: model, contextLength: 64, threadCount: 1)
        let tokens = model.tokenizer.encode("One two three four five")
        let full = snapshot(try evaluator.evaluate(tokens))
        evaluator.truncate(to: 2)
        #expect(evaluator.cachedTokens == Array(tokens.prefix(2)))
        let again = snapshot(try evaluator.evaluate(Array(tokens.dropFirst(2))))
        #expect(maxAbsDifference(full, again) < 1e-3)
        evaluator.reset()
        #expect(evaluator.cachedTokens.isEmpty)
    }
}
