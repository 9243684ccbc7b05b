import TestSupport
import Testing

@testable import ChatIntelligence

@Suite struct CleanupTests {
    let conversation = [
        message(People.alice, "Are we still on for Saturday?"),
        message(People.bob, "Yes! See you at 7."),
    ]

    func cleaned(_ raw: [String]) -> [String] {
        ReplyDrafter.cleaned(raw, messages: conversation, user: People.alice)
    }

    @Test(.onTestThreads) func trimsWhitespaceAndWrappingQuotes() {
        #expect(
            cleaned(["  Sounds good! ", "\"Can't wait!\"", "“See you then.”"]) == [
                "Sounds good!", "Can't wait!", "See you then.",
            ])
    }

    @Test(.onTestThreads) func dropsEmptiesAndDuplicates() {
        #expect(cleaned(["", "Great!", "   ", "great", "GREAT!!", "Who's driving?"]) == ["Great!", "Who's driving?"])
    }

    @Test(.onTestThreads) func dropsRepeatsOfTheConversation() {
        #expect(
            cleaned(["yes! see you at 7", "Are we still on for Saturday", "Perfect, thanks!"]) == ["Perfect, thanks!"])
    }

    @Test(.onTestThreads) func removesTheUsersOwnLabelAndDropsOthers() {
        #expect(cleaned(["Alice: Perfect!", "Bob: Cool", "3:30 works too"]) == ["Perfect!", "3:30 works too"])
    }

    @Test(.onTestThreads) func removesTheUserAddressingThemself() {
        #expect(
            cleaned(["Great news, Alice!", "Alice, what time?", "Sorry, alice."]) == [
                "Great news!", "What time?", "Sorry.",
            ])
        #expect(
            cleaned(["Thanks, Bob!", "Ask Alice later.", "Alice!"]) == ["Thanks, Bob!", "Ask Alice later.", "Alice!"])
    }

    @Test(.onTestThreads) func keepsAtMostThree() {
        #expect(cleaned(["One.", "Two.", "Three.", "Four."]) == ["One.", "Two.", "Three."])
    }

    @Test(.onTestThreads) func emojiOnlyRepliesCompareByText() {
        let withThumb = [message(People.bob, "👍")]
        #expect(
            ReplyDrafter.cleaned(["👍", "🎉", "Nice!"], messages: withThumb, user: People.alice) == ["🎉", "Nice!"])
    }
}
