import Foundation
import FoundationModels
import LocalEngine
import TestSupport
import Testing

@testable import ChatIntelligence

/// The speculation figure of the tools whose output repeats their input: proofread, make concise
/// and translate (into French) of ten fixed drafts, greedy, one at a time, each request with the
/// tool's real instructions, examples, prompt and typed output. Prints per tool the total time,
/// and writes every result with its time as JSON lines to `SOTTO_BENCH_SPECULATION` (a path).
/// `scripts/bench-speculation` runs it twice, in processes with and without prompt lookup
/// (`SOTTO_SPECULATION=off`), and compares the times and the outputs. Prints, never asserts speed.
@Suite(.serialized) struct SpeculationBench {
    static let environment = ProcessInfo.processInfo.environment

    /// The eight drafts of the tools' quality fixtures, then two more of the same kind.
    static func drafts() throws -> [String] {
        try ToolQualityEval.Fixtures.load().drafts.map(\.text) + [
            "can someone check the build on the release branch, it failed twice last night and i think its the new test for the parser",
            "the meeting with acme is moved to 2pm tomorrow, room 4b. bring the q3 numbers and the draft contract please",
        ]
    }

    @Test(.enabled(if: environment["SOTTO_BENCH_SPECULATION"] != nil, "set SOTTO_BENCH_SPECULATION=PATH"))
    func toolsWithAndWithoutPromptLookup() async throws {
        let out = try #require(Self.environment["SOTTO_BENCH_SPECULATION"])
        let drafts = try Self.drafts()
        #expect(drafts.count == 10)
        let model = LocalLanguageModel().system  // the engine in this process (SOTTO_MODEL)
        try #require(model.availability == .available, "model unavailable: \(model.availability)")
        let french = try #require(TranslationLanguage.named("fr"))

        // Loads the model and reads the three shared transcripts once, outside the figures.
        for transcript in [WritingTools.transcript, Translator.transcript] {
            _ = try await LanguageModelSession(model: model, transcript: transcript).respond(
                to: "Task: Proofread\n\nText:\nhi", generating: RewrittenText.self, includeSchemaInPrompt: false,
                options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 8))
        }

        var lines: [String] = []
        var totals: [String: Double] = [:]
        for tool in ["proofread", "make concise", "translate"] {
            let before = EngineScheduling.status.first
            for (index, draft) in drafts.enumerated() {
                let options = GenerationOptions(
                    sampling: .greedy, maximumResponseTokens: StreamedResponse.budget(for: draft, cap: 800))
                let start = ContinuousClock.now
                let text: String
                switch tool {
                case "translate":
                    let session = LanguageModelSession(model: model, transcript: Translator.transcript)
                    text = try await session.respond(
                        to: Translator.prompt(draft, into: french), generating: Translation.self,
                        includeSchemaInPrompt: false, options: options
                    ).content.text
                default:
                    let session = LanguageModelSession(model: model, transcript: WritingTools.transcript)
                    let writingTool: WritingTool = tool == "proofread" ? .proofread : .concise
                    text = try await session.respond(
                        to: WritingTools.prompt(writingTool, text: draft), generating: RewrittenText.self,
                        includeSchemaInPrompt: false, options: options
                    ).content.text
                }
                let elapsed = ContinuousClock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                totals[tool, default: 0] += seconds
                let record: [String: Any] = ["tool": tool, "index": index, "seconds": seconds, "text": text]
                lines.append(String(decoding: try JSONSerialization.data(withJSONObject: record), as: UTF8.self))
            }
            let after = EngineScheduling.status.first
            let steps = (after?.steps ?? 0) - (before?.steps ?? 0)
            let tokens = (after?.generatedTokens ?? 0) - (before?.generatedTokens ?? 0)
            print(
                "speculation \(tool): \(drafts.count) drafts in \(String(format: "%.2f", totals[tool]!)) s, \(tokens) tokens in \(steps) forward steps"
            )
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: out, atomically: true, encoding: .utf8)
    }
}
