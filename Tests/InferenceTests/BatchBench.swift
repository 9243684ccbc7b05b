import Foundation
import Kernels
import TestSupport
import Testing

@testable import Inference

/// Figures for batched decoding inside the engine (no HTTP): aggregate decode tokens per second
/// with 1, 2, 4 and 8 streams at once, and speculation on a proofreading prompt, with and
/// without drafts. Prints, never asserts speed. Runs only when SOTTO_BENCH=1; the models are
/// SOTTO_BENCH_MODELS (comma-separated catalog ids; default the 0.5B one).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["SOTTO_BENCH"] == "1"), .serialized)
struct BatchBench {
    static var models: [String] {
        (ProcessInfo.processInfo.environment["SOTTO_BENCH_MODELS"] ?? RealModels.qwen).split(separator: ",").map(
            String.init)
    }

    @Test func aggregateDecodeRateByStreams() async throws {
        for id in Self.models {
            let model = try TestModels.model(
                id, kernels: KernelSelection.resolve(ProcessInfo.processInfo.environment["SOTTO_KERNELS"]))
            let topics = [
                "the sea", "a city at night", "an old library", "a mountain road", "a rainy market",
                "a space station", "a desert oasis", "a winter forest",
            ]
            for streams in [1, 2, 4, 8] {
                let engine = GenerationEngine(model: model, contextLength: 1024, slotCount: 16)
                let options = DecodingOptions(maxTokens: 96, sampling: .greedy, stopsAtEndOfGeneration: false)
                let prompts = try topics.prefix(streams).map {
                    try model.chatFormat.promptTokens(for: [
                        ChatMessage(role: "user", content: "Write a long story about \($0).")
                    ])
                }
                let clock = ContinuousClock()
                let start = clock.now
                let summaries = try await withThrowingTaskGroup(of: (GenerationSummary?, Duration).self) { group in
                    for prompt in prompts {
                        group.addTask {
                            let handle = engine.submit(GenerationRequest(prompt: prompt, options: options))
                            var first: ContinuousClock.Instant?
                            for try await event in handle.events {
                                if case .token = event, first == nil { first = clock.now }
                            }
                            return (await handle.completion(), (first ?? start) - start)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let elapsed = clock.now - start
                let tokens = summaries.reduce(0) { $0 + ($1.0?.generatedTokens ?? 0) }
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                let firstTokens = summaries.map {
                    String(
                        format: "%.2f", Double($0.1.components.attoseconds) * 1e-18 + Double($0.1.components.seconds))
                }
                let status = engine.status
                let forward = status.forwardTime
                let forwardSeconds =
                    Double(forward.components.seconds) + Double(forward.components.attoseconds) * 1e-18
                print(
                    "batch \(id) \(model.kernelSet): \(streams) streams, \(tokens) tokens in \(String(format: "%.2f", seconds)) s = \(String(format: "%.1f", Double(tokens) / seconds)) tok/s aggregate (prompts included); first tokens at \(firstTokens.joined(separator: ", ")) s; \(status.steps) steps, forward passes \(String(format: "%.2f", forwardSeconds)) s"
                )
            }
        }
    }

    /// One forward pass of N one-row segments (N sequences decoding a token each, 200 tokens
    /// into their caches, or SOTTO_BENCH_HISTORY) against N passes of one row: what batching
    /// saves, engine overheads aside. (At 530 tokens, a reply-chip prompt's length, attention
    /// adds about 2.4 ms per sequence on the 1.5B model, Zen 3, avx2: 8 sequences 116.5 ms
    /// against 97.3 at 200.)
    @Test(.onTestThreads) func forwardPassOfNDecodingSequences() throws {
        for id in Self.models {
            let model = try TestModels.model(
                id, kernels: KernelSelection.resolve(ProcessInfo.processInfo.environment["SOTTO_KERNELS"]))
            let pool = ForwardPass.pool(threadCount: nil)
            let pass = ForwardPass(model: model, rowCapacity: 16, logitCapacity: 16, contextLength: 1024, pool: pool)
            let length = Int(ProcessInfo.processInfo.environment["SOTTO_BENCH_HISTORY"] ?? "") ?? 200
            let history = (0..<min(length, 1000)).map { 1000 + $0 % 500 }
            let caches = (0..<8).map { _ in
                let evaluator = Evaluator(model: model, contextLength: 1024)
                _ = try? evaluator.evaluate(history)
                return evaluator.cache
            }
            let clock = ContinuousClock()
            var figures: [String] = []
            for n in [1, 2, 4, 8] {
                let tokens = Array(repeating: 1234, count: n)
                let segments = (0..<n).map {
                    ForwardSegment(cache: caches[$0], start: history.count, row: $0, count: 1, logits: .last)
                }
                tokens.withUnsafeBufferPointer { pass.run($0, segments) }  // warm
                let rounds = 10
                let start = clock.now
                for _ in 0..<rounds { tokens.withUnsafeBufferPointer { pass.run($0, segments) } }
                let elapsed = clock.now - start
                let ms =
                    (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
                    * 1000 / Double(rounds)
                figures.append(
                    "\(n): \(String(format: "%.1f", ms)) ms (\(String(format: "%.0f", Double(n) * 1000 / ms)) tok/s)")
            }
            print(
                "forward pass \(id) \(model.kernelSet), N one-row sequences at \(history.count) tokens: \(figures.joined(separator: ", "))"
            )
        }
    }

    /// Prompt lookup on the echo-heavy tools: proofreading fixed drafts, greedy, one request at
    /// a time, with and without drafts (the output must be the same; the time is what changes).
    @Test func proofreadingWithAndWithoutPromptLookup() async throws {
        let drafts = [
            "hey team, the client moved the launch to march 3 so we have two extra weeks. priya will redo the slides and i will send the new budget by thursday",
            "can someone check the build on the release branch, it failed twice last night and i think its the new test for the parser",
            "reminder that the office is closed on friday. if you need access to the lab talk to marco before thursday noon",
            "the meeting with acme is moved to 2pm tomorrow, room 4b. bring the q3 numbers and the draft contract please",
            "i pushed a fix for the login timeout, it needs a review. the change is small, mostly in session.swift and the tests",
        ]
        for id in Self.models {
            let model = try TestModels.model(
                id, kernels: KernelSelection.resolve(ProcessInfo.processInfo.environment["SOTTO_KERNELS"]))
            let options = DecodingOptions(maxTokens: 120, sampling: .greedy, stopsAtEndOfGeneration: true)
            var seconds: [Bool: Double] = [:]
            var outputs: [Bool: [[Int]]] = [:]
            var accepted = 0
            var drafted = 0
            for speculates in [false, true] {
                let engine = GenerationEngine(model: model, contextLength: 1024, slotCount: 2, speculates: speculates)
                let clock = ContinuousClock()
                var total = Duration.zero
                for draft in drafts {
                    let prompt = try model.chatFormat.promptTokens(for: [
                        ChatMessage(
                            role: "system", content: "You proofread text. Answer with the corrected text only."),
                        ChatMessage(
                            role: "user", content: "Fix the capitals and punctuation of this text:\n\n" + draft),
                    ])
                    let start = clock.now
                    let handle = engine.submit(GenerationRequest(prompt: prompt, options: options))
                    var tokens: [Int] = []
                    for try await event in handle.events {
                        if case .token(let token, _) = event { tokens.append(token) }
                    }
                    total += clock.now - start
                    outputs[speculates, default: []].append(tokens)
                    if speculates, let summary = await handle.completion() {
                        drafted += summary.draftedTokens
                        accepted += summary.acceptedDraftTokens
                    }
                }
                seconds[speculates] = Double(total.components.seconds) + Double(total.components.attoseconds) * 1e-18
            }
            let without = seconds[false]!, with = seconds[true]!
            print(
                "speculation \(id) \(model.kernelSet): proofread \(drafts.count) drafts in \(String(format: "%.2f", without)) s without prompt lookup, \(String(format: "%.2f", with)) s with (\(String(format: "%.2f", with / without))×); drafted \(drafted), accepted \(accepted); output identical: \(outputs[false]! == outputs[true]!)"
            )
        }
    }
}
