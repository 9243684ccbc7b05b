import TestSupport
import Testing

@testable import ChatIntelligence

@Suite struct ToolScorerTests {
    let draft = "hey team, i cant make the 3pm review on thursday becuase Dana moved the demo."
    let facts = [ToolScorer.Fact(["3pm", "3 pm", "15:00"]), ToolScorer.Fact(["thursday"]), ToolScorer.Fact(["Dana"])]

    @Test(.onTestThreads) func factsAreFoundWhateverTheirCaseSpacingOrPunctuation() {
        #expect(ToolScorer.Fact(["3pm"]).isKept(in: "at 3 PM on Thursday"))
        #expect(ToolScorer.Fact(["9:40"]).isKept(in: "until 9:40pm."))
        #expect(ToolScorer.Fact(["$1250"]).isKept(in: "The invoice for $1,250 is due"))
        #expect(ToolScorer.Fact(["accounts@example.com"]).isKept(in: "Send it to Accounts@Example.com."))
        #expect(ToolScorer.Fact(["cafe"]).isKept(in: "Le Café"))
        #expect(!ToolScorer.Fact(["10"]).isKept(in: "at 10:30"))  // 10:30 is not 10
        #expect(!ToolScorer.Fact(["Dana"]).isKept(in: "Danae moved it"))
    }

    @Test(.onTestThreads) func rewritesKeepEveryFact() {
        let kept = "Hi team, I can't make the 3 PM review on Thursday because Dana moved the demo."
        #expect(
            ToolScorer.writing(.professional, result: kept, original: draft, facts: facts, misspellings: []).isEmpty)
        let lost = ToolScorer.writing(
            .rewrite, result: "I can't make the review; the demo moved.", original: draft, facts: facts,
            misspellings: [])
        #expect(lost == [.lostFacts(["3pm|3 pm|15:00", "thursday", "Dana"])])
        #expect(
            ToolScorer.writing(
                .friendly, result: "Here is a friendlier version: " + kept, original: draft, facts: facts,
                misspellings: [])
                == [.commentary("here is")])
        #expect(ToolScorer.writing(.rewrite, result: "  ", original: draft, facts: facts, misspellings: []) == [.empty])
    }

    @Test(.onTestThreads) func proofreadingFixesTheMisspellingsAndConciseIsShorter() {
        let unfixed = ToolScorer.writing(
            .proofread, result: "Hey team, I can't make the 3pm review on Thursday becuase Dana moved the demo.",
            original: draft, facts: facts, misspellings: ["becuase", "cant"])
        #expect(unfixed == [.unfixed("becuase")])
        let longer = ToolScorer.writing(
            .concise, result: draft + " Sorry about that, everyone.", original: draft, facts: facts, misspellings: [])
        #expect(longer == [.notShorter(words: 19, original: 15)])
        // A summary may drop a quarter of the facts, not more.
        let four = facts + [ToolScorer.Fact(["demo"])]
        let summary = ToolScorer.writing(
            .summarize, result: "Dana moved the demo, so the 3pm review is off.", original: draft, facts: four,
            misspellings: [])
        #expect(summary.isEmpty)
        let third = ToolScorer.writing(
            .summarize, result: "Dana moved the demo, so the 3pm review is off.", original: draft, facts: facts,
            misspellings: [])
        #expect(third == [.lostFacts(["thursday"])])
        #expect(
            ToolScorer.writing(.keyPoints, result: "• One\n- Two", original: draft, facts: [], misspellings: []) == [
                .badPoints(2)
            ])
    }

    @Test(.onTestThreads) func chrFRewardsTheReferenceAndNotOtherText() {
        let reference = "Mon train a 20 minutes de retard, commencez sans moi."
        #expect(abs(ToolScorer.chrF(reference, reference: reference) - 1) < 1e-9)
        #expect(ToolScorer.chrF("Mon train a vingt minutes de retard, commencez sans moi.", reference: reference) > 0.7)
        #expect(ToolScorer.chrF("My train is 20 minutes late, start without me.", reference: reference) < 0.4)
        #expect(ToolScorer.chrF("", reference: reference) == 0)
    }

    @Test(.onTestThreads) func translationsAndSummaries() {
        let (problems, _) = ToolScorer.translation(
            "My train is 20 minutes late.", original: "My train is 20 minutes late.",
            reference: "Mon train a 20 minutes de retard.", facts: [ToolScorer.Fact(["20"])])
        #expect(problems.contains(.untranslated))
        #expect(
            ToolScorer.summary("Alice asked about lunch.", speakers: ["Alice", "Bob"]) == [.missingSpeakers(["Bob"])])
        let long = Array(repeating: "Alice and Bob", count: 30).joined(separator: " ")
        #expect(ToolScorer.summary(long, speakers: ["Alice", "Bob"]) == [.tooLong(words: 90, limit: 70)])
    }
}
