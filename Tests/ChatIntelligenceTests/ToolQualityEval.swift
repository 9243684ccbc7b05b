import ChatIntelligence
import Foundation
import FoundationModels
import LocalEngine
import ModelStore
import TestSupport
import Testing

/// The quality evaluation of the writing tools, translation and thread summaries: runs each on
/// the fixed inputs of `Fixtures/tools.json` with a real model and scores the results with
/// `ToolScorer`. Run it with `scripts/eval-tools` (it needs `SOTTO_EVAL_TOOLS=1`, a release
/// build and a downloaded model; `SOTTO_MODEL` picks the model). `SOTTO_EVAL_OUT` names a JSON
/// lines file for the translations, whose language `scripts/eval-tools` checks with langid;
/// `SOTTO_EVAL_PARTS` (`writing,translation,summary`) picks what runs.
@Suite(.serialized) struct ToolQualityEval {
    static let environment = ProcessInfo.processInfo.environment

    struct Fixtures: Decodable {
        struct Draft: Decodable {
            var name: String
            var text: String
            var facts: [ToolScorer.Fact]
            var misspellings: [String]
        }
        struct TranslationCase: Decodable {
            var text: String
            /// Words of the translation, per language, that carry the meaning (the day, the
            /// thing): a fluent sentence that says Wednesday for Thursday fails.
            var keep: [String: [ToolScorer.Fact]]
            var facts: [ToolScorer.Fact]
            var references: [String: String]
        }
        struct Thread: Decodable {
            var name: String
            var messages: [[String]]
        }
        var drafts: [Draft]
        var translations: [TranslationCase]
        var threads: [Thread]

        static func load() throws -> Fixtures {
            let url = try #require(
                Bundle.module.url(forResource: "tools", withExtension: "json", subdirectory: "Fixtures"))
            return try JSONDecoder().decode(Fixtures.self, from: Data(contentsOf: url))
        }
    }

    /// Pass counts and warm generation times of one part.
    struct Tally {
        var passed = 0
        var total = 0
        var seconds: [Double] = []

        mutating func add(_ ok: Bool, _ time: Double) {
            total += 1
            if ok { passed += 1 }
            seconds.append(time)
        }

        var line: String {
            let sorted = seconds.dropFirst().sorted()  // the first also loads the model
            let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
            let rate = total == 0 ? 0 : Double(passed) / Double(total) * 100
            return String(format: "%d/%d = %.0f %%, median %.1f s warm", passed, total, rate, median)
        }
    }

    static func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
        let start = ContinuousClock.now
        let value = try await body()
        let elapsed = ContinuousClock.now - start
        return (value, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    static func row(_ columns: String..., problems: [ToolScorer.Problem], text: String) {
        let verdict = problems.isEmpty ? "pass" : "FAIL"
        print(columns.joined(separator: " ") + " \(verdict)  \(text.replacingOccurrences(of: "\n", with: " / "))")
        for problem in problems { print("    - \(problem)") }
        fflush(nil)
    }

    @Test(.enabled(if: environment["SOTTO_EVAL_TOOLS"] == "1", "set SOTTO_EVAL_TOOLS=1 (scripts/eval-tools)"))
    func toolQuality() async throws {
        let env = Self.environment
        let fixtures = try Fixtures.load()
        let model = LocalLanguageModel().system  // the engine in this process (SOTTO_MODEL)
        try #require(model.availability == .available, "model unavailable: \(model.availability)")
        let parts = Set(
            (env["SOTTO_EVAL_PARTS"] ?? "writing,translation,summary").split(separator: ",").map(String.init))
        print("model \(env["SOTTO_MODEL"] ?? ModelStore().defaultModelID)")

        if parts.contains("writing") {
            let tools = WritingTools(model: model)
            var tally = Tally()
            var perTool: [WritingTool: Tally] = [:]
            for draft in fixtures.drafts {
                for tool in WritingTool.allCases {
                    let (result, seconds) = try await Self.timed { try await tools.apply(tool, to: draft.text) }
                    let problems = ToolScorer.writing(
                        tool, result: result, original: draft.text, facts: draft.facts, misspellings: draft.misspellings
                    )
                    tally.add(problems.isEmpty, seconds)
                    perTool[tool, default: Tally()].add(problems.isEmpty, seconds)
                    Self.row(
                        draft.name.padding(toLength: 10, withPad: " ", startingAt: 0),
                        tool.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0),
                        String(format: "%5.1f s", seconds),
                        problems: problems, text: result)
                }
            }
            for tool in WritingTool.allCases { print("writing \(tool.rawValue): \(perTool[tool]?.line ?? "-")") }
            print("writing tools: \(tally.line)")
        }

        if parts.contains("translation") {
            let translator = Translator(model: model)
            var tally = Tally()
            var lines: [String] = []
            var scores: [Double] = []
            for item in fixtures.translations {
                for code in item.references.keys.sorted() {
                    let language = try #require(TranslationLanguage.named(code))
                    let (result, seconds) = try await Self.timed {
                        try await translator.translate(item.text, into: language)
                    }
                    let (problems, chrF) = ToolScorer.translation(
                        result, original: item.text, reference: item.references[code]!,
                        facts: item.facts + (item.keep[code] ?? []))
                    scores.append(chrF)
                    tally.add(problems.isEmpty, seconds)
                    Self.row(
                        code.padding(toLength: 3, withPad: " ", startingAt: 0),
                        String(format: "chrF %3.0f", chrF * 100),
                        String(format: "%5.1f s", seconds), problems: problems, text: result)
                    let record: [String: Any] = [
                        "language": code, "text": result, "source": item.text, "swift_ok": problems.isEmpty,
                        "chrf": chrF,
                    ]
                    lines.append(String(decoding: try JSONSerialization.data(withJSONObject: record), as: UTF8.self))
                }
            }
            print(
                String(
                    format: "translation (meaning, facts, not copied): %@; mean chrF %.0f", tally.line,
                    scores.reduce(0, +) / Double(max(1, scores.count)) * 100))
            if let out = env["SOTTO_EVAL_OUT"] {
                try (lines.joined(separator: "\n") + "\n").write(toFile: out, atomically: true, encoding: .utf8)
            }
        }

        if parts.contains("summary") {
            let summarizer = ThreadSummarizer(model: model)
            var tally = Tally()
            for thread in fixtures.threads {
                let messages = thread.messages.map {
                    ChatMessage(author: Participant(id: $0[0], name: $0[0]), text: $0[1])
                }
                var speakers: [String] = []
                for message in messages where !speakers.contains(message.author.name) {
                    speakers.append(message.author.name)
                }
                let (result, seconds) = try await Self.timed { try await summarizer.summarize(messages) }
                let problems = ToolScorer.summary(result, speakers: speakers)
                tally.add(problems.isEmpty, seconds)
                Self.row(
                    thread.name.padding(toLength: 10, withPad: " ", startingAt: 0),
                    "\(SuggestionScorer.wordCount(result)) words", String(format: "%5.1f s", seconds),
                    problems: problems,
                    text: result)
            }
            print("summaries (every speaker named, at most \(ThreadSummarizer.wordLimit) words): \(tally.line)")
        }
    }
}
