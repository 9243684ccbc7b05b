import ChatIntelligence
import TestSupport
import Testing

@Suite struct FixtureTests {
    @Test(.onTestThreads) func theQualitySetIsVariedAndAnswerable() throws {
        let conversations = try Conversation.loadAll()
        #expect(conversations.count >= 12)
        #expect(Set(conversations.map(\.name)).count == conversations.count)
        #expect(Set(conversations.map(\.kind)).count >= 12)
        #expect(conversations.contains { $0.messages.count > ReplyDrafter.messageLimit })
        for conversation in conversations {
            #expect(conversation.people[conversation.user] != nil, "\(conversation.name): unknown user")
            #expect(
                conversation.messages.allSatisfy { conversation.people[$0.from] != nil },
                "\(conversation.name): unknown author")
            #expect(
                ReplyDrafter.wantsReply(conversation.chatMessages, user: conversation.userParticipant),
                "\(conversation.name)")
        }
    }
}
