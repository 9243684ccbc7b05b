import Foundation
import FoundationModels
import LocalEngine
import TestSupport
import Testing

@testable import ChatIntelligence

/// Reply suggestions from a real model, in every `swift test` run (the quality evaluation over
/// many conversations is `scripts/eval-suggestions`): the 0.5B model drafts three usable replies.
@Suite struct RealModelSuggestionTests {
    @Test func theSmallModelDraftsThreeDistinctRepliesWithinTheBounds() async throws {
        let path = try RealModels.path(RealModels.qwen)
        // The engine in this process (a release test build), not the engine service.
        let drafter = ReplyDrafter(model: LocalLanguageModel(model: .path(path)).system)
        #expect(drafter.isAvailable)
        let conversation = [
            message(People.alice, "Are we still on for the hike?"),
            message(People.bob, "Yeah! Saturday morning works for me. Can you bring snacks?"),
        ]
        let replies = try #require(try await drafter.suggestions(replyingTo: conversation, as: People.alice))
        #expect(replies.count == 3, "\(replies)")
        #expect(replies.allSatisfy { !$0.trimmingCharacters(in: .whitespaces).isEmpty }, "\(replies)")
        #expect(Set(replies.map { $0.lowercased() }).count == replies.count, "\(replies)")
        let bound = try SchemaTests().replyPattern(ReplySuggestions.generationSchema)
        for reply in replies {
            #expect(reply.wholeMatch(of: bound) != nil, "\(reply) is outside the schema's bounds")
            #expect(reply.split(separator: " ").count <= 8, "\(reply)")
            #expect(!conversation.contains { $0.text == reply }, "\(reply) repeats the conversation")
        }
    }
}
