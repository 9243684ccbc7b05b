import Foundation
import FoundationModels
import GenerableFixtures
import LocalEngine
import TestSupport
import Testing

/// Guided generation on real models, written as Apple documents the API.
extension EngineTests {
    @Suite
    struct Structured {
        let model: LocalLanguageModel

        init() throws {
            model = try EngineModels.model(EngineModels.smollm)
        }

        @Test func threeShortRepliesWithAGuideDescription() async throws {
            let session = LanguageModelSession(
                model: model, instructions: "You suggest short replies to chat messages.")
            let response = try await session.respond(
                to: "Want to go hiking on Saturday?", generating: ReplySuggestions.self,
                options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 60))
            #expect(response.content.replies.count == 3)
            #expect(response.usage.output.totalTokenCount > 0)
            #expect(response.usage.output.totalTokenCount <= 60)
            // The raw JSON parses back to the same content.
            let reparsed = try ReplySuggestions(GeneratedContent(json: response.rawContent.jsonString))
            #expect(reparsed.replies == response.content.replies)
        }

        /// Apple's sample code as written, default options included (the engine's default sampling
        /// chain, no seed): the guide's count holds whatever is drawn, and the session's transcript
        /// keeps the structured response it returned.
        @Test func appleSampleCodeOnTheRealEngine() async throws {
            let session = LanguageModelSession(model: model, instructions: "Suggest replies the user could send.")
            let prompt = "Alice: Want to go hiking on Saturday?"
            let response = try await session.respond(to: prompt, generating: ReplySuggestions.self)
            #expect(response.content.replies.count == 3)
            guard case .response(let entry)? = session.transcript.last,
                case .structure(let structured)? = entry.segments.last
            else {
                Issue.record("the transcript does not end with the structured response: \(session.transcript)")
                return
            }
            #expect(try ReplySuggestions(structured.content).replies == response.content.replies)
        }

        @Test(arguments: [UInt64(1), 2, 3])
        func alwaysExactlyFourSearchTerms(seed: UInt64) async throws {
            let session = LanguageModelSession(model: model)
            let response = try await session.respond(
                to: "Suggest searches about Swift concurrency.", generating: SearchSuggestions.self,
                options: GenerationOptions(
                    sampling: .random(top: 40, seed: seed), temperature: 1.2, maximumResponseTokens: 50))
            #expect(response.content.searchTerms.count == 4)
        }

        @Test func anEnum() async throws {
            let session = LanguageModelSession(model: model)
            let response = try await session.respond(
                to: "What is the sentiment of: 'I love this phone!'", generating: Sentiment.self,
                options: GenerationOptions(sampling: .greedy))
            #expect([Sentiment.positive, .neutral, .negative].contains(response.content))
            #expect(["\"positive\"", "\"neutral\"", "\"negative\""].contains(response.rawContent.jsonString))
        }

        @Test func nestedTypesHonourEveryGuide() async throws {
            let session = LanguageModelSession(model: model)
            let response = try await session.respond(
                to: "Invent a short story.", generating: Story.self,
                options: GenerationOptions(
                    sampling: .random(probabilityThreshold: 0.9, seed: 7), maximumResponseTokens: 120))
            let story = response.content
            #expect((1...3).contains(story.characters.count))
            for character in story.characters {
                #expect((1...120).contains(character.age))
                #expect([Sentiment.positive, .neutral, .negative].contains(character.mood))
            }
            #expect(story.hashtag.wholeMatch(of: /#[a-z]+/) != nil)
            #expect(["fantasy", "mystery", "romance"].contains(story.genre))
            #expect((0...5).contains(story.rating))
        }

        @Test func streamingFillsTheFirstReplyBeforeTheSecondStarts() async throws {
            let session = LanguageModelSession(model: model)
            let stream = session.streamResponse(
                to: "Suggest replies to: 'Lunch tomorrow?'", generating: ReplySuggestions.self,
                options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 60))
            var counts: [Int] = []
            var firstReplyBeforeSecond: String?
            for try await snapshot in stream {
                let replies = snapshot.content.replies ?? []
                if counts.last != replies.count { counts.append(replies.count) }
                if replies.count == 1, let first = replies.first, !first.isEmpty { firstReplyBeforeSecond = first }
            }
            let response = try await stream.collect()
            #expect(response.content.replies.count == 3)
            #expect(counts == [0, 1, 2, 3] || counts == [1, 2, 3])
            // Text of the first reply was shown while it was the only one, and it grew into the final one.
            let partial = try #require(firstReplyBeforeSecond)
            #expect(response.content.replies[0].hasPrefix(partial))
        }

        @Test func aSchemaGivenAtRuntime() async throws {
            let schema = try GenerationSchema(
                root: DynamicGenerationSchema(
                    name: "Contact",
                    properties: [
                        .init(name: "name", schema: DynamicGenerationSchema(type: String.self)),
                        .init(
                            name: "phone",
                            schema: DynamicGenerationSchema(type: String.self, guides: [.pattern(/[0-9]{3}-[0-9]{4}/)])),
                        .init(name: "vip", schema: DynamicGenerationSchema(type: Bool.self)),
                    ]), dependencies: [])
            let session = LanguageModelSession(model: model)
            let response = try await session.respond(
                to: "Make up a contact.", schema: schema,
                options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 40))
            let phone: String = try response.content.value(forProperty: "phone")
            #expect(phone.wholeMatch(of: /[0-9]{3}-[0-9]{4}/) != nil)
            let _: Bool = try response.content.value(forProperty: "vip")
        }
    }
}
