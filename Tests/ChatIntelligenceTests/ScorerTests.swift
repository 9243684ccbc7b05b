import TestSupport
import Testing

@testable import ChatIntelligence

@Suite struct ScorerTests {
    let conversation = [
        message(People.alice, "Want to grab dinner Friday?"),
        message(People.bob, "Sure! Where should we go?"),
    ]

    func problems(_ replies: [String]) -> [SuggestionScorer.Problem] {
        SuggestionScorer.problems(replies, messages: conversation, user: People.alice)
    }

    @Test(.onTestThreads) func aGoodSetPasses() {
        #expect(problems(["How about tacos?", "Your pick!", "That new ramen place"]).isEmpty)
        #expect(problems(["I'd love to", "Count me in!", "Where are you from?"]).isEmpty)
    }

    @Test(.onTestThreads) func countsReplies() {
        #expect(problems(["Tacos?", "Ramen?"]) == [.count(2)])
        #expect(problems([]) == [.count(0)])
    }

    @Test(.onTestThreads) func findsDuplicatesIgnoringCaseAndPunctuation() {
        #expect(problems(["Tacos!", "tacos", "Ramen?"]) == [.duplicate("tacos")])
    }

    @Test(.onTestThreads) func findsLongReplies() {
        let long = "I think we should go somewhere nice and quiet"
        #expect(problems([long, "Ramen?", "Tacos!"]) == [.tooLong(long, words: 9)])
        let eight = "We could try that new sushi place downtown"
        #expect(problems([eight, "Ramen?", "Tacos!"]) == [.atBound(eight)])
        #expect(problems([eight + "?", "Ramen?", "Tacos!"]).isEmpty)
        #expect(problems(["We could try that new sushi place", "Ramen?", "Tacos!"]).isEmpty)
    }

    @Test(
        .onTestThreads,
        arguments: [
            "Let's meet at the", "Let's meet at the.", "How about the place near the", "I was thinking we could go to",
            "Sounds good, but", "Could you try a different version of …", "We could go to …?", "Maybe tacos,",
            "Either tacos or ramen (your", "Vamos al restaurante de",
            "On peut aller à la", "I'm", "My treat and",
        ])
    func findsCutOffReplies(reply: String) {
        #expect(!SuggestionScorer.endsNaturally(reply))
    }

    @Test(
        .onTestThreads,
        arguments: [
            "Sounds good", "Count me in!", "I'd love to", "Happy to.", "Sorry, I can't.", "Where to?", "Sort of.",
            "See you then!", "Oh no", "Yes, I am.", "Here it is.", "¡Vamos!", "Et vous ?", "Das bin ich.", "👍", "7pm?",
            "What's it like?", "I'm in",
        ])
    func acceptsFinishedReplies(reply: String) {
        #expect(SuggestionScorer.endsNaturally(reply))
    }

    @Test(.onTestThreads) func findsRepliesWrittenAsSomeoneElse() {
        #expect(problems(["Bob: tacos!", "Ramen?", "Pizza!"]) == [.wrongSide("Bob: tacos!")])
        #expect(problems(["Alice: tacos!", "Ramen?", "Pizza!"]) == [.wrongSide("Alice: tacos!")])
        #expect(problems(["Sure thing, Alice!", "Ramen?", "Pizza!"]) == [.wrongSide("Sure thing, Alice!")])
        // Addressing the other person is fine; so is a time with a colon.
        #expect(problems(["Bob, tacos!", "Ramen at 7:30?", "Pizza!"]).isEmpty)
    }

    @Test(.onTestThreads) func findsRepeatsOfTheConversation() {
        #expect(
            problems(["Sure! Where should we go?", "Ramen?", "Pizza!"]) == [
                .repeatsConversation("Sure! Where should we go?")
            ])
    }

    @Test(.onTestThreads) func findsGarbledReplies() {
        #expect(problems(["I'll try.findsomething", "Ramen?", "Pizza!"]) == [.garbled("I'll try.findsomething")])
        #expect(problems(["really,really hard", "Ramen?", "Pizza!"]) == [.garbled("really,really hard")])
        #expect(problems(["Send you 反馈.", "Ramen?", "Pizza!"]) == [.garbled("Send you 反馈.")])
        #expect(problems(["At 7:30, e.g. ramen?", "Ramen, ok?", "Pizza!"]).isEmpty)
        let chinese = [message(People.bob, "周六去爬山吗？")]
        #expect(SuggestionScorer.problems(["好的！", "不行。", "几点？"], messages: chinese, user: People.alice).isEmpty)
    }

    @Test(.onTestThreads) func reportsEveryProblem() {
        let found = problems(["Bob: want to grab dinner Friday?", "ramen with", "Ramen with"])
        #expect(
            Set(found) == [
                .wrongSide("Bob: want to grab dinner Friday?"), .cutOff("ramen with"), .cutOff("Ramen with"),
                .duplicate("Ramen with"),
            ])
    }
}
