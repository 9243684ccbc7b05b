import Foundation
import FoundationModels
import LocalEngine
import TestSupport
import Testing

@testable import ChatIntelligence

/// What each feature asks the model and makes of the answer, with a canned backend; then each
/// feature once on the real 0.5B model.
@Suite struct FeatureTests {
    @Test func writingToolsShareOneStartAndAskForTheTool() async throws {
        let backend = CannedBackend(reply: #"{"text":"  Hello, could you send the slides?  "}"#)
        let tools = WritingTools(model: backend.model)
        #expect(try await tools.apply(.professional, to: "hey send slides") == "Hello, could you send the slides?")
        _ = try await tools.apply(.proofread, to: "teh slides", attempt: 1)
        let requests = backend.requests
        #expect(requests.count == 2)
        // Instructions, then one worked example per tool: the same start for every tool.
        #expect(requests[0].messages.dropLast() == requests[1].messages.dropLast())
        #expect(requests[0].messages.count == 1 + 2 * WritingTool.allCases.count + 1)
        #expect(
            requests[0].messages.last?.content == "Task: \(WritingTool.professional.task)\n\nText:\nhey send slides")
        #expect(requests[1].messages.last?.content.hasPrefix("Task: Proofread") == true)
        #expect(requests[0].generationOptions != requests[1].generationOptions)  // another attempt, another seed
        for example in requests[0].messages.dropFirst().filter({ $0.role == .assistant }) {
            #expect(example.content.contains(#""text""#) || example.content.contains(#""points""#))
        }
    }

    @Test func keyPointsBecomeBulletLines() async throws {
        let backend = CannedBackend(reply: #"{"points":["Launch moved to March 3."," Priya redoes the slides. "]}"#)
        let tools = WritingTools(model: backend.model)
        #expect(try await tools.apply(.keyPoints, to: "x") == "• Launch moved to March 3.\n• Priya redoes the slides.")
        #expect(Set(WritingTool.allCases.map(\.title)).count == 7)
    }

    @Test func aTranslationThatCopiesTheMessageIsWrittenAgain() async throws {
        let backend = CannedBackend(reply: #"{"text":"Cool. Should we invite Sam?"}"#)
        let translator = Translator(model: backend.model)
        let french = try #require(TranslationLanguage.named("FR"))
        _ = try await translator.translate("Cool. Should we invite Sam too?", into: french)
        #expect(backend.requests.count == 2)  // copied: asked once more, sampled
        #expect(
            backend.requests[0].generationOptions.sampling == .greedy
                && backend.requests[1].generationOptions.sampling != .greedy)
        #expect(backend.requests[0].messages.last?.content.hasSuffix("Write this message in French.") == true)
        #expect(Translator.copies("Cool. Should we invite Sam?", "Cool. Should we invite Sam too?"))
        #expect(!Translator.copies("Cool. On invite Sam aussi ?", "Cool. Should we invite Sam too?"))
        #expect(Translator.copies("Sam ?", "Sam?"))  // a name alone is the same in any language: a copy
        let once = CannedBackend(reply: #"{"text":"On invite Sam aussi ?"}"#)
        _ = try await Translator(model: once.model).translate(
            "Should we invite Sam?", into: french)
        #expect(once.requests.count == 1)
    }

    @Test(.onTestThreads) func theSummaryPromptNamesEveryoneOnce() {
        let prompt = ThreadSummarizer.prompt(for: [
            message(People.alice, "Lunch?"), message(People.bob, "Sure"), message(People.alice, "Noon\nat Gino's"),
        ])
        let lines = prompt.split(separator: "\n").map(String.init)
        #expect(lines.first == "People: Alice, Bob")
        #expect(lines.contains("Alice: Noon at Gino's"))
        #expect(prompt.hasSuffix("naming who said what."))
        #expect(ToolScorer.summary(ThreadSummarizer.example.summary, speakers: ["Dana", "Omar", "Lena"]).isEmpty)
    }

    /// The model reads "Saturday 8am" as a date it worked out and 20:00; the words win.
    @Test func spelledOutDaysAndTimesOverrideTheModel() async throws {
        let backend = CannedBackend(
            reply:
                #"{"title":"Hike","day":"date","date":"2026-12-01","startTime":"20:00","durationMinutes":90,"place":"the trailhead"}"#
        )
        let extractor = EventExtractor(model: backend.model)
        let zone = TimeZone(identifier: "Europe/Paris")!
        let sent = Date(timeIntervalSince1970: 1_796_120_400)  // Tuesday 1 December 2026, 11:20 in Paris
        let event = try #require(
            try await extractor.event(
                in: "Let's meet Saturday 8am at the trailhead", from: "Bob", sentAt: sent, timeZone: zone))
        #expect(CalendarEvent.utc(event.start) == "20261205T070000Z")  // 08:00 in Paris
        #expect(event.end.timeIntervalSince(event.start) == 90 * 60 && event.location == "the trailhead")
        let prompt = try #require(backend.requests.first?.messages.last?.content)
        #expect(prompt == "Message from Bob, sent Tuesday 2026-12-01 11:20:\nLet's meet Saturday 8am at the trailhead")
    }

    @Test func searchSuggestionsAreFourTermsFromTheMessages() async throws {
        let backend = CannedBackend(reply: #"{"terms":["trailhead","ridge trail","snacks","weather"]}"#)
        let suggester = SearchSuggester(model: backend.model)
        let terms = try await suggester.suggestions(for: "hike", messages: ["Meet at the trailhead", "Bring snacks"])
        #expect(terms == ["trailhead", "ridge trail", "snacks", "weather"])
        let prompt = try #require(backend.requests.first?.messages.last?.content)
        #expect(prompt == "Topic: hike\nMessages:\n- Meet at the trailhead\n- Bring snacks")
        let schema = SearchSuggestions.generationSchema.jsonSchemaString
        #expect(schema.contains(#""minItems":4"#) && schema.contains(#""maxItems":4"#))
    }

    @Test(.onTestThreads) func theToneOpensTheReplySchemaAndTheExamples() throws {
        let schema = ReplySuggestions.generationSchema.jsonSchemaString
        let tone = try #require(schema.range(of: #""tone""#))
        let replies = try #require(schema.range(of: #""replies""#))
        #expect(tone.lowerBound < replies.lowerBound)
        #expect(schema.contains("casual") && schema.contains("formal"))
        let answers = ReplyDrafter.transcript.compactMap { entry -> ReplySuggestions? in
            guard case .response(let response) = entry, case .structure(let segment)? = response.segments.first else {
                return nil
            }
            return try? ReplySuggestions(segment.content)
        }
        #expect(answers.map(\.tone) == ReplyDrafter.examples.map { $0.tone ?? .casual })
    }

    /// Every feature once on the real 0.5B model: schema-valid, in the shape promised, streamed.
    @Test func everyFeatureOnTheRealModel() async throws {
        let model = LocalLanguageModel(model: .path(try RealModels.path(RealModels.qwen))).system
        let partials = PartialLog()
        let replies = try await ReplyDrafter(model: model).suggestions(
            replyingTo: [message(People.bob, "Want to get lunch tomorrow?")], as: People.alice, tone: .formal,
            onPartial: { partials.append($0) })
        #expect((1...3).contains(replies?.count ?? 0))
        #expect(partials.count >= 2, "the replies did not stream")

        var snapshots = 0
        var last = ""
        for try await text in WritingTools(model: model).stream(.concise, on: WritingTools.exampleDraft) {
            snapshots += 1
            last = text
        }
        #expect(snapshots >= 3 && !last.isEmpty)

        let terms = try await SearchSuggester(model: model).suggestions(
            for: "hike", messages: ["Meet at the trailhead at 8am", "I'll bring snacks", "Ridge trail is 12 km"])
        #expect(terms.count == SearchSuggester.termCount && terms.allSatisfy { !$0.isEmpty })

        let zone = TimeZone(identifier: "America/Denver")!
        let sent = Date(timeIntervalSince1970: 1_796_133_360)  // Tuesday 1 December 2026, 06:56 in Denver
        let event = try #require(
            try await EventExtractor(model: model).event(
                in: "Let's meet Saturday 8am at the trailhead", from: "Bob", sentAt: sent, timeZone: zone))
        #expect(CalendarEvent.utc(event.start) == "20261205T150000Z")

        let summary = try await ThreadSummarizer(model: model).summarize([
            message(People.alice, "Can you bring the projector on Friday?"), message(People.bob, "Yes, I'll bring it."),
        ])
        #expect(!summary.isEmpty)
        let translation = try await Translator(model: model).translate(
            "Thank you for the flowers!", into: TranslationLanguage.named("es")!)
        #expect(!translation.isEmpty && !Translator.copies(translation, "Thank you for the flowers!"))
    }
}

/// Partial reply sets, recorded from the drafter's callback.
final class PartialLog: @unchecked Sendable {
    // @unchecked Sendable: `sets` is only touched inside `lock`.
    private let lock = NSLock()
    private var sets: [[String]] = []

    func append(_ set: [String]) {
        lock.lock()
        sets.append(set)
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return sets.count
    }
}
