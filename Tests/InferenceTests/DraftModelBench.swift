import Foundation
import Kernels
import TestSupport
import Testing

@testable import Inference

/// The draft-model trial: the 0.5B Qwen drafting for the 1.5B Qwen (they share a tokenizer),
/// greedy, one request at a time, on free text and on a rewrite. Each round the draft model
/// proposes `k` tokens one step at a time, the target verifies them with the token before them
/// in one forward pass of `k + 1` rows and keeps the confirmed run plus its own next token.
/// Each prompt runs without a draft and then with each `k`, back to back. Prints, per `k`, the
/// acceptance rate (confirmed / drafted), the tokens per second with and without the draft, and
/// whether the output is the same token for token (it must be). Prints, never asserts speed. Runs only when SOTTO_BENCH=1 and both models are installed; the kernels
/// are SOTTO_KERNELS, the draft lengths SOTTO_BENCH_DRAFTS (default 1,3,7: 2, 4 and 8 rows, the
/// product kernels' tile sizes).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["SOTTO_BENCH"] == "1"), .serialized)
struct DraftModelBench {
    static let prompts = [
        "Write a short story about a lighthouse keeper who finds a message in a bottle.",
        "Explain to a new colleague how a team chat channel differs from a direct message, in two paragraphs.",
        "What should I pack for a three-day hiking trip in the mountains in autumn? Answer as a list.",
        "Summarize this conversation in three sentences.\nPriya: the client moved the launch to March 3.\nMarco: so we have two extra weeks?\nPriya: yes. I will redo the slides and send the new budget by Thursday.\nMarco: great, I will tell the QA team to plan the regression run for the last week of February.",
        "Proofread this message and return only the corrected text: hey team, the client moved the launch to march 3 so we have two extra weeks. priya will redo the slides and i will send the new budget by thursday",
        "Rewrite this to be more polite: send me the q3 numbers today, the meeting with acme is at 2pm tomorrow in room 4b and i need them before.",
    ]

    @Test(.onTestThreads) func draftModelForTheDefaultModel() throws {
        let kernels = try KernelSelection.resolve(ProcessInfo.processInfo.environment["SOTTO_KERNELS"])
        let target = try TestModels.model(RealModels.qwenLarge, kernels: kernels)
        let draft = try TestModels.model(RealModels.qwen, kernels: kernels)
        let lengths = (ProcessInfo.processInfo.environment["SOTTO_BENCH_DRAFTS"] ?? "1,3,7").split(separator: ",")
            .compactMap { Int($0) }
        let maxTokens = 128
        let targetEvaluator = Evaluator(model: target, contextLength: 1024, threadCount: nil, logitRows: 16)
        let draftEvaluator = Evaluator(model: draft, contextLength: 1024)
        let stops = target.tokenizer.endOfGenerationTokenIDs
        let prompts = try Self.prompts.map {
            try target.chatFormat.promptTokens(for: [ChatMessage(role: "user", content: $0)])
        }
        print(
            "draft model: \(RealModels.qwen) for \(RealModels.qwenLarge), \(target.kernelSet), \(ProcessInfo.processInfo.activeProcessorCount) cores, greedy, \(prompts.count) prompts, up to \(maxTokens) tokens each"
        )

        // Per prompt, plain decoding and then each draft length, back to back, so that the
        // machine's drift over the run weighs on both sides alike.
        var plainSeconds = 0.0
        var plainCount = 0
        var tallies = lengths.map { _ in Tally() }
        for prompt in prompts {
            targetEvaluator.reset()
            let (plain, seconds) = try Self.timed {
                var logits = try targetEvaluator.prepare(prompt: prompt).logits
                var out: [Int] = []
                while out.count < maxTokens {
                    let next = Self.argmax(logits)
                    out.append(next)
                    if stops.contains(next) { break }
                    logits = try targetEvaluator.evaluate([next])
                }
                return out
            }
            plainSeconds += seconds
            plainCount += plain.count
            for (index, k) in lengths.enumerated() {
                targetEvaluator.reset()
                draftEvaluator.reset()
                var drafted = 0
                var confirmed = 0
                let (tokens, elapsed) = try Self.timed {
                    try Self.generate(
                        prompt: prompt, target: targetEvaluator, draft: draftEvaluator, k: k, maxTokens: maxTokens,
                        stops: stops,
                        record: { proposed, kept, draftTime in
                            drafted += proposed
                            confirmed += kept
                            tallies[index].rounds += 1
                            tallies[index].draftSeconds += draftTime
                        })
                }
                tallies[index].same = tallies[index].same && tokens == plain
                tallies[index].seconds += elapsed
                tallies[index].count += tokens.count
                tallies[index].drafted += drafted
                tallies[index].confirmed += confirmed
                tallies[index].perPrompt.append(Self.format(Double(confirmed) / Double(max(drafted, 1))))
            }
        }
        print(
            "  without: \(plainCount) tokens in \(Self.format(plainSeconds)) s = \(Self.format(Double(plainCount) / plainSeconds, 1)) tok/s (prompts included)"
        )
        for (k, t) in zip(lengths, tallies) {
            print(
                "  k \(k): \(t.count) tokens in \(Self.format(t.seconds)) s = \(Self.format(Double(t.count) / t.seconds, 1)) tok/s (\(Self.format(t.seconds / plainSeconds))× the time without); acceptance \(t.confirmed)/\(t.drafted) = \(Self.format(Double(t.confirmed) / Double(max(t.drafted, 1)))) (per prompt \(t.perPrompt.joined(separator: ", "))); \(Self.format(Double(t.count) / Double(max(t.rounds, 1)))) tokens per target pass; drafting \(Self.format(t.draftSeconds)) s; output identical: \(t.same)"
            )
        }
    }

    /// What one draft length did over the prompts.
    struct Tally {
        var seconds = 0.0
        var count = 0
        var drafted = 0
        var confirmed = 0
        var rounds = 0
        var draftSeconds = 0.0
        var perPrompt: [String] = []
        var same = true
    }

    /// Greedy generation of up to `maxTokens` with `draft` proposing `k` tokens a round.
    /// `record(drafted, confirmed, draftSeconds)` is called once a round.
    static func generate(
        prompt: [Int], target: Evaluator, draft: Evaluator, k: Int, maxTokens: Int, stops: Set<Int>,
        record: (Int, Int, Double) -> Void
    ) throws -> [Int] {
        var out = [argmax(try target.prepare(prompt: prompt).logits)]
        try draft.prepare(prompt: prompt)
        while out.count < maxTokens, let last = out.last, !stops.contains(last) {
            // The draft model catches up with what the target confirmed, then proposes.
            let history = prompt + out
            let (proposal, draftTime) = try timed {
                draft.truncate(to: min(draft.cachedTokens.count, history.count - 1))
                var logits = try draft.evaluate(Array(history[draft.cachedTokens.count...]))
                var proposal: [Int] = []
                let room = min(k, maxTokens - out.count)
                while proposal.count < room {
                    let next = argmax(logits)
                    proposal.append(next)
                    if stops.contains(next) || proposal.count == room { break }
                    logits = try draft.evaluate([next])
                }
                return proposal
            }
            // The target reads the last confirmed token and the proposal in one pass.
            let base = target.cachedTokens.count
            try target.evaluate([last] + proposal, everyRow: true)
            var kept = 0
            var next = argmax(target.logits(row: 0))
            while kept < proposal.count, next == proposal[kept], !stops.contains(next), out.count < maxTokens {
                out.append(next)
                kept += 1
                next = argmax(target.logits(row: kept))
            }
            target.truncate(to: base + 1 + kept)
            if out.count < maxTokens { out.append(next) }
            record(proposal.count, kept, draftTime)
        }
        return out
    }

    static func argmax(_ logits: UnsafeMutableBufferPointer<Float>) -> Int {
        SamplerChain.argmax(UnsafeBufferPointer(logits))!
    }

    static func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let value = try body()
        return (value, (clock.now - start).inSeconds)
    }

    static func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
}
