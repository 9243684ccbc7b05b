import ChatIntelligence
import Foundation
import FoundationModels
import LocalEngine
import ModelStore
import TestSupport
import Testing

/// The suggestion quality evaluation: runs the suggester on every conversation of
/// `Fixtures/conversations.json` with a real model and scores each chip set with
/// `SuggestionScorer`. Run it with `scripts/eval-suggestions` (it needs `SOTTO_EVAL=1`, a
/// release build and a downloaded model; `SOTTO_MODEL` picks the model).
///
/// Settings, all optional: `SOTTO_EVAL_SAMPLING` (`greedy`, or `top:K`), `SOTTO_EVAL_TEMPERATURE`,
/// `SOTTO_EVAL_SEEDS` (runs per conversation, each with its own seed), `SOTTO_EVAL_SCHEMA=1`
/// (put the JSON Schema in the prompt too), `SOTTO_EVAL_REPLAY` (score the chip sets in a JSON
/// lines file instead of generating: `{"name": …, "replies": […]}`), `SOTTO_EVAL_ONLY`
/// (conversation names, comma-separated), `SOTTO_EVAL_TARGET` (pass rate the test asserts,
/// default 0.9).
@Suite(.serialized) struct SuggestionQualityEval {
    static let environment = ProcessInfo.processInfo.environment

    @Test(.enabled(if: environment["SOTTO_EVAL"] == "1", "set SOTTO_EVAL=1 (scripts/eval-suggestions)"))
    func suggestionQuality() async throws {
        let env = Self.environment
        var conversations = try Conversation.loadAll()
        if let only = env["SOTTO_EVAL_ONLY"], !only.isEmpty {
            let names = Set(only.split(separator: ",").map(String.init))
            conversations = conversations.filter { names.contains($0.name) }
        }
        let replayed = try env["SOTTO_EVAL_REPLAY"].map(Self.chipSets(from:))
        let model = LocalLanguageModel().system
        if replayed == nil {
            try #require(model.availability == .available, "model unavailable: \(model.availability)")
        }
        let seeds = max(1, Int(env["SOTTO_EVAL_SEEDS"] ?? "") ?? 1)
        let temperature = Double(env["SOTTO_EVAL_TEMPERATURE"] ?? "") ?? ReplyDrafter.defaultOptions.temperature
        let sampling = env["SOTTO_EVAL_SAMPLING"] ?? "default"

        print(
            "model \(env["SOTTO_MODEL"] ?? ModelStore().defaultModelID), sampling \(sampling), temperature \(temperature.map { "\($0)" } ?? "-"), \(seeds) seed(s)"
        )
        var passed = 0
        var total = 0
        var times: [Double] = []
        for seed in 0..<seeds {
            var options = ReplyDrafter.defaultOptions
            options.temperature = temperature
            switch sampling {
            case "greedy": options.sampling = .greedy
            case let mode where mode.hasPrefix("top:"):
                options.sampling = .random(top: Int(mode.dropFirst(4)) ?? 40, seed: UInt64(7 + seed))
            default: options.sampling = .random(top: 40, seed: UInt64(7 + seed))
            }
            var suggester = ReplyDrafter(model: model, options: options)
            suggester.includesSchemaInPrompt = env["SOTTO_EVAL_SCHEMA"] == "1"
            for conversation in conversations {
                let messages = conversation.chatMessages
                let user = conversation.userParticipant
                let start = ContinuousClock.now
                var replies: [String] = []
                var failure: String?
                if let replayed {
                    replies = replayed[conversation.name] ?? []
                } else {
                    do {
                        replies =
                            try await suggester.suggestions(
                                replyingTo: messages, as: user, tone: conversation.replyTone) ?? []
                    } catch {
                        failure = "\(error)"
                    }
                }
                let elapsed = ContinuousClock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                if total > 0 { times.append(seconds) }  // the first request also loads the model
                let problems = SuggestionScorer.problems(
                    replies, messages: Array(messages.suffix(ReplyDrafter.windowSize(messageCount: messages.count))),
                    user: user)
                let ok = failure == nil && problems.isEmpty
                total += 1
                if ok { passed += 1 }
                let name = conversation.name.padding(toLength: 16, withPad: " ", startingAt: 0)
                let kind = conversation.kind.prefix(28).padding(toLength: 28, withPad: " ", startingAt: 0)
                let verdict = ok ? "pass" : "FAIL"
                print(
                    "\(name) \(kind) \(verdict) \(String(format: "%5.1f s", seconds))  "
                        + replies.map { "[\($0)]" }.joined(separator: " "))
                if let failure { print("    error: \(failure)") }
                for problem in problems { print("    - \(problem)") }
                fflush(nil)  // a row per conversation as it is scored, even into a pipe
            }
        }
        times.sort()
        let median = times.isEmpty ? 0 : times[times.count / 2]
        let rate = total == 0 ? 0 : Double(passed) / Double(total)
        print(
            String(
                format: "pass rate %d/%d = %.0f %%, median %.1f s per chip set (warm)", passed, total, rate * 100,
                median))
        let target = Double(env["SOTTO_EVAL_TARGET"] ?? "") ?? 0.9
        #expect(rate >= target, "pass rate \(rate) below \(target)")
    }

    /// Chip sets recorded elsewhere (another engine, an earlier run): JSON lines of
    /// `{"name": conversation name, "replies": [...]}`.
    static func chipSets(from path: String) throws -> [String: [String]] {
        struct Line: Decodable {
            var name: String
            var replies: [String]
        }
        var sets: [String: [String]] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") where !line.isEmpty {
            let decoded = try JSONDecoder().decode(Line.self, from: Data(line.utf8))
            sets[decoded.name] = decoded.replies
        }
        return sets
    }
}
