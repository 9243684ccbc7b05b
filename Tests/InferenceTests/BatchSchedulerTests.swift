import TestSupport
import Testing

@testable import Inference

/// The scheduler's rules, without a model: priority, the slot kept for people, fairness between
/// users, staleness, how prompts are read between the others' tokens, shared prefixes read once,
/// and speculation stepping aside as the batch fills.
@Suite struct BatchSchedulerTests {
    typealias Ticket = BatchScheduler.Ticket

    static func ticket(
        _ id: Int, _ priority: GenerationPriority = .interactive, user: String = "u", key: String? = nil,
        prompt: [Int]? = nil, prewarm: Bool = false
    ) -> Ticket {
        Ticket(
            id: id, priority: priority, user: user, stalenessKey: key, prompt: prompt ?? [100 + id, 1, 2, 3],
            readsPromptOnly: prewarm)
    }

    static func started(_ actions: [BatchScheduler.Action]) -> [Int] {
        actions.compactMap { if case .start(let id, _, _, _) = $0 { id } else { nil } }
    }

    @Test(.onTestThreads) func peopleFirstThenSuggestionsThenBackground() {
        var scheduler = BatchScheduler(limits: .init(slots: 2))
        _ = scheduler.submit(Self.ticket(1, .background))
        _ = scheduler.submit(Self.ticket(2, .suggestion))
        _ = scheduler.submit(Self.ticket(3, .interactive))
        // Two slots: the person's request and then the suggestion; background waits.
        #expect(Self.started(scheduler.admit()) == [3])  // the last slot is kept for people
        scheduler.finish(3, cachedTokens: [103, 1, 2, 3])
        #expect(Self.started(scheduler.admit()) == [2])
        #expect(scheduler.waiting.map(\.id) == [1])
    }

    @Test(.onTestThreads) func theLastSlotIsKeptForAPersonWaiting() {
        var scheduler = BatchScheduler(limits: .init(slots: 3))
        for id in 1...4 { _ = scheduler.submit(Self.ticket(id, .suggestion)) }
        #expect(Self.started(scheduler.admit()) == [1, 2])
        _ = scheduler.submit(Self.ticket(9, .interactive))
        #expect(Self.started(scheduler.admit()) == [9])
        #expect(scheduler.runningCount == 3)
        // Nothing more until a slot is free.
        #expect(Self.started(scheduler.admit()).isEmpty)
    }

    @Test(.onTestThreads) func usersShareFairlyAmongEquals() {
        var scheduler = BatchScheduler(limits: .init(slots: 3))
        // Alice asks three times before Bob and Carol ask once.
        for id in 1...3 { _ = scheduler.submit(Self.ticket(id, user: "alice")) }
        _ = scheduler.submit(Self.ticket(4, user: "bob"))
        _ = scheduler.submit(Self.ticket(5, user: "carol"))
        #expect(Self.started(scheduler.admit()) == [1, 4, 5])
        // Alice and Bob, each served once with nothing running, take turns.
        _ = scheduler.submit(Self.ticket(6, user: "bob"))
        scheduler.finish(1, cachedTokens: [])
        scheduler.finish(4, cachedTokens: [])
        #expect(Self.started(scheduler.admit()) == [2, 6])
    }

    @Test(.onTestThreads) func aNewerRequestWithTheSameKeyDropsTheQueuedOneAndStopsTheRunningOne() {
        var scheduler = BatchScheduler(limits: .init(slots: 3))
        _ = scheduler.submit(Self.ticket(1, .suggestion, key: "chips/general/alice"))
        #expect(Self.started(scheduler.admit()) == [1])
        _ = scheduler.submit(Self.ticket(2, .suggestion, key: "chips/random/alice"))
        // A new message in #general: the running suggestion for it stops.
        let actions = scheduler.submit(Self.ticket(3, .suggestion, key: "chips/general/alice"))
        #expect(actions == [.stop(id: 1)])
        // And a second new message before 3 started drops 3, keeping only the newest.
        #expect(
            scheduler.submit(Self.ticket(4, .suggestion, key: "chips/general/alice")) == [
                .drop(id: 3, reason: .stale), .stop(id: 1),
            ])
        #expect(scheduler.waiting.map(\.id) == [2, 4])
        #expect(scheduler.markStale(key: "chips/random/alice") == [.drop(id: 2, reason: .stale)])
        #expect(scheduler.waiting.map(\.id) == [4])
    }

    @Test(.onTestThreads) func aPrewarmOfAPromptAlreadyHeldIsDroppedWithoutASlot() {
        var scheduler = BatchScheduler(limits: .init(slots: 2))
        _ = scheduler.submit(Self.ticket(1, prompt: [5, 6, 7]))
        _ = scheduler.admit()
        scheduler.finish(1, cachedTokens: [5, 6, 7])
        _ = scheduler.submit(Self.ticket(2, prompt: [5, 6, 7], prewarm: true))
        #expect(scheduler.admit() == [.drop(id: 2, reason: .alreadyRead)])
        #expect(scheduler.runningCount == 0)
    }

    @Test(.onTestThreads) func aFollowUpTakesTheSlotHoldingItsConversation() {
        var scheduler = BatchScheduler(limits: .init(slots: 4))
        _ = scheduler.submit(Self.ticket(1, prompt: [1, 2, 3, 4]))
        _ = scheduler.submit(Self.ticket(2, prompt: [9, 9, 9]))
        _ = scheduler.admit()
        scheduler.finish(1, cachedTokens: [1, 2, 3, 4, 50, 51])
        scheduler.finish(2, cachedTokens: [9, 9, 9, 60])
        _ = scheduler.submit(Self.ticket(3, prompt: [1, 2, 3, 4, 50, 51, 7, 8]))
        #expect(scheduler.admit() == [.start(id: 3, slot: 0, sharedPrefix: 6, isNewSlot: false)])
    }

    @Test(.onTestThreads) func promptsAreReadInSmallerChunksWhileOthersGenerate() {
        var scheduler = BatchScheduler(
            limits: .init(slots: 4, rowBudget: 128, prefillAlone: 128, prefillWhileDecoding: 32))
        _ = scheduler.submit(Self.ticket(1, prompt: Array(0..<500)))
        _ = scheduler.admit()
        #expect(scheduler.prefillRows(reading: [.init(id: 1, position: 0)], decodeRows: 0, decoding: 0) == [1: 128])
        #expect(scheduler.prefillRows(reading: [.init(id: 1, position: 128)], decodeRows: 3, decoding: 3) == [1: 32])
        // The last rows of a prompt.
        #expect(scheduler.prefillRows(reading: [.init(id: 1, position: 490)], decodeRows: 0, decoding: 0) == [1: 10])
    }

    @Test(.onTestThreads) func aPersonsPromptIsReadBeforeASuggestions() {
        var scheduler = BatchScheduler(limits: .init(slots: 4, prefillWhileDecoding: 32))
        _ = scheduler.submit(Self.ticket(1, .suggestion, prompt: Array(1000..<1100)))
        _ = scheduler.submit(Self.ticket(2, .interactive, prompt: Array(2000..<2100)))
        _ = scheduler.admit()
        let rows = scheduler.prefillRows(
            reading: [.init(id: 1, position: 0), .init(id: 2, position: 0)], decodeRows: 1, decoding: 1)
        #expect(rows == [2: 32])
    }

    @Test(.onTestThreads) func suggestionsReadLessWhileAPersonWaits() {
        var scheduler = BatchScheduler(
            limits: .init(slots: 4, prefillWhileDecoding: 32, prefillBesideInteractive: 8))
        _ = scheduler.submit(Self.ticket(1, .suggestion, user: "a", prompt: Array(1000..<1100)))
        _ = scheduler.submit(Self.ticket(2, .suggestion, user: "b", prompt: Array(2000..<2100)))
        _ = scheduler.admit()
        let suggestions: [BatchScheduler.Reading] = [.init(id: 1, position: 0), .init(id: 2, position: 0)]
        // No person waiting: suggestions' prompts fill the step.
        #expect(scheduler.prefillRows(reading: suggestions, decodeRows: 2, decoding: 2) == [1: 32])
        // A person's prompt arrives: the step that reads it reads nothing else…
        _ = scheduler.submit(Self.ticket(3, .interactive, user: "c", prompt: Array(3000..<3012)))
        _ = scheduler.admit()
        #expect(
            scheduler.prefillRows(
                reading: suggestions + [.init(id: 3, position: 0)], decodeRows: 2, decoding: 2) == [3: 12])
        // …and while the person's answer is generating, suggestions read a little at a time.
        #expect(scheduler.prefillRows(reading: suggestions, decodeRows: 3, decoding: 3) == [1: 8])
        #expect(
            scheduler.prefillRows(
                reading: [.init(id: 1, position: 95), .init(id: 2, position: 0)], decodeRows: 3, decoding: 3)
                == [1: 5, 2: 3])
        // Once it is done, they fill the step again; alone, in steps a person can wait for.
        scheduler.finish(3, cachedTokens: Array(3000..<3012))
        #expect(scheduler.prefillRows(reading: suggestions, decodeRows: 2, decoding: 2) == [1: 32])
        #expect(scheduler.prefillRows(reading: suggestions, decodeRows: 0, decoding: 0) == [1: 32])
    }

    @Test(.onTestThreads) func backgroundWorkWaitsForWhatPeopleSeeButIsNotStarved() {
        var scheduler = BatchScheduler(limits: .init(slots: 8, backgroundPatience: 3))
        // Alone, a title starts at once.
        _ = scheduler.submit(Self.ticket(1, .background))
        #expect(Self.started(scheduler.admit()) == [1])
        scheduler.finish(1, cachedTokens: [])
        // While a suggestion runs, the next one waits…
        _ = scheduler.submit(Self.ticket(2, .suggestion))
        _ = scheduler.submit(Self.ticket(3, .background))
        #expect(Self.started(scheduler.admit()) == [2])
        #expect(Self.started(scheduler.admit()).isEmpty)
        // …and starts when it is done.
        scheduler.finish(2, cachedTokens: [])
        #expect(Self.started(scheduler.admit()) == [3])
        scheduler.finish(3, cachedTokens: [])
        // Under a load that never ends, it starts after `backgroundPatience` admissions.
        _ = scheduler.submit(Self.ticket(4, .interactive))
        _ = scheduler.submit(Self.ticket(5, .background))
        #expect(Self.started(scheduler.admit()) == [4])
        #expect(Self.started(scheduler.admit()).isEmpty)
        #expect(Self.started(scheduler.admit()).isEmpty)
        #expect(Self.started(scheduler.admit()) == [5])  // three admissions waited
    }

    @Test(.onTestThreads) func runningBackgroundWorkSitsOutWhilePeopleAreServed() {
        var scheduler = BatchScheduler(limits: .init(slots: 8, backgroundPatience: 2))
        _ = scheduler.submit(Self.ticket(1, .background))
        #expect(Self.started(scheduler.admit()) == [1])
        #expect(scheduler.paused.isEmpty)
        // A suggestion arrives: the title keeps its slot and state but takes no rows…
        _ = scheduler.submit(Self.ticket(2, .suggestion))
        #expect(Self.started(scheduler.admit()) == [2])
        #expect(scheduler.paused == [1])
        // …until it is done,
        scheduler.finish(2, cachedTokens: [])
        _ = scheduler.admit()
        #expect(scheduler.paused.isEmpty)
        // or for at most `backgroundPatience` steps in all.
        _ = scheduler.submit(Self.ticket(3, .interactive))
        #expect(Self.started(scheduler.admit()) == [3])
        #expect(scheduler.paused == [1])
        _ = scheduler.admit()
        #expect(scheduler.paused.isEmpty)
        scheduler.finish(1, cachedTokens: [])
        #expect(scheduler.paused.isEmpty)
    }

    @Test(.onTestThreads) func aSharedStartIsReadOnceAndTheOthersWaitForIt() {
        var scheduler = BatchScheduler(limits: .init(slots: 4))
        let instructions = Array(0..<300)
        _ = scheduler.submit(Self.ticket(1, prompt: instructions + [7001, 7002]))
        _ = scheduler.submit(Self.ticket(2, prompt: instructions + [8001]))
        _ = scheduler.admit()
        // The second waits while the first reads the 300 tokens they share…
        #expect(
            scheduler.prefillRows(
                reading: [.init(id: 1, position: 0), .init(id: 2, position: 0)], decodeRows: 0, decoding: 0)
                == [1: 128])
        // …and reads on once the first is past them (the engine copies the shared rows over).
        #expect(
            scheduler.prefillRows(
                reading: [.init(id: 1, position: 300), .init(id: 2, position: 300)], decodeRows: 0, decoding: 0)
                == [1: 2, 2: 1])
    }

    @Test(.onTestThreads) func speculationStepsAsideAsTheBatchFills() {
        let scheduler = BatchScheduler(limits: .init(slots: 8, draftLimits: [8, 4]))
        #expect(scheduler.draftLimit(decoding: 1) == 8)
        #expect(scheduler.draftLimit(decoding: 2) == 4)
        #expect(scheduler.draftLimit(decoding: 3) == 0)
        #expect(scheduler.draftLimit(decoding: 8) == 0)
    }
}

@Suite struct PromptLookupTests {
    @Test(.onTestThreads) func theTokensAfterTheLastEarlierOccurrenceOfTheLongestTail() {
        let lookup = PromptLookup(longestMatch: 3, shortestMatch: 1)
        // ... 5 6 7 8 9 ... 5 6 7 → 8 9 10 ...
        let history = [1, 5, 6, 7, 8, 9, 10, 11, 2, 3, 5, 6, 7]
        #expect(lookup.draft(after: history, limit: 3) == [8, 9, 10])
        #expect(lookup.draft(after: history, limit: 10) == [8, 9, 10, 11, 2, 3, 5, 6, 7])
        // The most recent earlier occurrence wins.
        #expect(lookup.draft(after: [4, 1, 4, 2, 4], limit: 1) == [2])
        // Nothing repeats: no draft.
        #expect(lookup.draft(after: [1, 2, 3, 4], limit: 4) == [])
        #expect(lookup.draft(after: [1, 2, 1], limit: 0) == [])
    }

    /// A draft brings a decode step's rows to 2, 4 or 8 (the kernels' tiles), never past 8.
    @Test(.onTestThreads) func draftsFillTheStepToAPowerOfTwoRows() {
        #expect(EngineLoop.draftFitting(4, rowsBefore: 1) == 3)
        #expect(EngineLoop.draftFitting(16, rowsBefore: 1) == 7)
        #expect(EngineLoop.draftFitting(2, rowsBefore: 1) == 1)
        #expect(EngineLoop.draftFitting(1, rowsBefore: 1) == 1)
        #expect(EngineLoop.draftFitting(0, rowsBefore: 1) == 0)
        // Another sequence's rows come first in the step: 5 + 3 = 8, 3 + 1 = 4.
        #expect(EngineLoop.draftFitting(4, rowsBefore: 5) == 3)
        #expect(EngineLoop.draftFitting(4, rowsBefore: 3) == 1)
        #expect(EngineLoop.draftFitting(4, rowsBefore: 8) == 0)
    }

    @Test(.onTestThreads) func aLongerMatchIsPreferredToAShorterOne() {
        let lookup = PromptLookup(longestMatch: 3, shortestMatch: 1)
        // "2 3" is followed by 9 once and by 4 after "1 2 3".
        let history = [1, 2, 3, 4, 2, 3, 9, 1, 2, 3]
        #expect(lookup.draft(after: history, limit: 1) == [4])
    }
}

@Suite struct DraftLengthTests {
    @Test(.onTestThreads) func draftsGrowWhileConfirmedShrinkWhenRefusedAndPauseWhenTheyKeepFailing() {
        var drafts = DraftLength()
        #expect(drafts.length == 4)
        drafts.verified(drafted: 4, accepted: 4)
        #expect(drafts.length == 8)
        drafts.verified(drafted: 8, accepted: 3)
        #expect(drafts.length == 3)
        drafts.verified(drafted: 3, accepted: 0)
        #expect(drafts.length == 1 && drafts.isDrafting)
        drafts.verified(drafted: 1, accepted: 0)
        #expect(!drafts.isDrafting)
        for _ in 0..<DraftLength.pause { drafts.stepWithoutDraft() }
        #expect(drafts.isDrafting)
        for _ in 0..<5 { drafts.verified(drafted: drafts.length, accepted: drafts.length) }
        #expect(drafts.length == DraftLength.longest)
    }
}
