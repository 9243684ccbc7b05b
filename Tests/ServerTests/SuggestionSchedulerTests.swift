import ChatIntelligence
import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server

@Suite struct SuggestionSchedulerTests {
    typealias F = ContextFactory

    @Test func noSuggesterMeansUnavailable() async {
        let scheduler = SuggestionScheduler(suggester: nil) { _, _ in }
        let snapshot = await scheduler.submit(F.context(messages: [(F.bob, "Hi?")]))
        #expect(snapshot.status == .unavailable)
        #expect(!scheduler.isAvailable)
    }

    @Test func resultsArePublishedAndCachedBySignature() async {
        let suggester = GatedSuggester(open: true)
        let log = PublishedLog()
        let scheduler = SuggestionScheduler(suggester: suggester, publish: log.record)
        let context = F.context(messages: [(F.alice, "Hike Saturday?"), (F.bob, "Yes! What time?")])
        await #expect(scheduler.submit(context).status == .pending)
        await scheduler.waitUntilIdle()
        #expect(log.all.count == 1)
        #expect(log.all.first?.snapshot.status == .ready)
        #expect(log.all.first?.snapshot.suggestions == ["Reply to Yes! What time?", "Sure!", "Maybe later"])
        let again = await scheduler.submit(context)
        #expect(again.status == .ready)
        #expect(again.signature == context.signature)
        await scheduler.waitUntilIdle()
        #expect(scheduler.generationCount == 1)  // the same conversation is not generated twice
        var formal = context
        formal.tone = .formal
        #expect(formal.signature != context.signature)
        await #expect(scheduler.submit(formal).status == .pending)
        await scheduler.waitUntilIdle()
        #expect(scheduler.generationCount == 2)
    }

    @Test func noSuggestionsWhenTheUserSpokeLast() async {
        let suggester = GatedSuggester(open: true)
        let log = PublishedLog()
        let scheduler = SuggestionScheduler(suggester: suggester, publish: log.record)
        await #expect(scheduler.submit(F.context(messages: [])).status == .none)
        await #expect(scheduler.submit(F.context(messages: [(F.bob, "Hi"), (F.alice, "Hello!")])).status == .none)
        await scheduler.waitUntilIdle()
        #expect(suggester.askedFor.isEmpty)
        #expect(log.all.isEmpty)  // nothing was offered, so nothing is withdrawn

        // Once chips were offered, the user's own message withdraws them.
        await scheduler.submit(F.context(messages: [(F.bob, "Lunch?")]))
        await scheduler.waitUntilIdle()
        await scheduler.submit(F.context(messages: [(F.bob, "Lunch?"), (F.alice, "Sure")]))
        #expect(log.all.map(\.snapshot.status) == [.ready, .none])
    }

    @Test func onlyTheNewestPendingRequestPerConversationRuns() async throws {
        let suggester = GatedSuggester()
        let log = PublishedLog()
        let scheduler = SuggestionScheduler(suggester: suggester, publish: log.record)
        await scheduler.submit(F.context(channel: "first", messages: [(F.bob, "one")]))
        try await suggester.waitForCalls(1)  // "first" is now generating; the rest must wait
        await scheduler.submit(F.context(channel: "second", messages: [(F.bob, "a")]))
        await scheduler.submit(F.context(channel: "second", messages: [(F.bob, "a"), (F.bob, "b")]))
        let newest = F.context(channel: "second", messages: [(F.bob, "a"), (F.bob, "b"), (F.bob, "c")])
        await scheduler.submit(newest)
        suggester.release()
        await scheduler.waitUntilIdle()
        #expect(suggester.askedFor.map { $0.recentMessages.last?.text } == ["one", "c"])
        #expect(log.all.map(\.snapshot.signature).last == newest.signature)
    }

    @Test func theMostRecentlyRequestedConversationGoesFirst() async throws {
        let suggester = GatedSuggester()
        let scheduler = SuggestionScheduler(suggester: suggester) { _, _ in }
        await scheduler.submit(F.context(channel: "busy", messages: [(F.bob, "x")]))
        try await suggester.waitForCalls(1)
        await scheduler.submit(F.context(channel: "older", messages: [(F.bob, "1")]))
        await scheduler.submit(F.context(channel: "newer", messages: [(F.bob, "2")]))
        suggester.release()
        await scheduler.waitUntilIdle()
        #expect(suggester.askedFor.map(\.channel.cid.id) == ["busy", "newer", "older"])
    }

    @Test func resultsForAConversationThatMovedOnAreDropped() async throws {
        let suggester = GatedSuggester()
        let log = PublishedLog()
        let scheduler = SuggestionScheduler(suggester: suggester, publish: log.record)
        let old = F.context(messages: [(F.bob, "Coffee?")])
        await scheduler.submit(old)
        try await suggester.waitForCalls(1)
        let moved = F.context(messages: [(F.bob, "Coffee?"), (F.bob, "Or tea?")])
        await #expect(scheduler.submit(moved).status == .pending)
        suggester.release()
        await scheduler.waitUntilIdle()
        #expect(log.all.map(\.snapshot.signature) == [moved.signature])
        #expect(scheduler.snapshot(for: .init(user: "alice", cid: moved.channel.cid))?.signature == moved.signature)
    }

    @Test func aSuggesterWithNothingToSayMakesTheRowUnavailable() async {
        let log = PublishedLog()
        let scheduler = SuggestionScheduler(
            suggester: GatedSuggester(open: true, reply: { _ in nil }), publish: log.record)
        await scheduler.submit(F.context(messages: [(F.bob, "Something sensitive")]))
        await scheduler.waitUntilIdle()
        #expect(log.all.map(\.snapshot.status) == [.unavailable])
    }

    @Test(.onTestThreads) func chipsAreCleanedUp() {
        let context = F.context(messages: [(F.bob, "See you at 8?")])
        let cleaned = SuggestionScheduler.clean(
            [
                "  Yes!  ", "yes!", "", "\u{1B}\u{1B}", "See you at 8?", String(repeating: "x", count: 200),
                "No\u{1B}  way\n", "Maybe", "Extra",
            ],
            context: context)
        #expect(cleaned == ["Yes!", "No way", "Maybe"])
    }

    /// What the on-device suggester hands the model: authors by display name (their id when they
    /// are not a participant any more), and the user the replies are for.
    @Test(.onTestThreads) func theModelReadsAuthorsByNameAndDraftsForTheUser() {
        let carol = User(id: "carol", name: "Carol", createdAt: .now, updatedAt: .now)
        var context = F.context(for: F.bob, messages: [(F.alice, "Hike?"), (carol, "Count me in"), (F.alice, "Bob?")])
        let (messages, user) = ModelSuggester.conversation(of: context)
        #expect(
            messages.map { "\($0.author.name): \($0.text)" } == ["Alice: Hike?", "carol: Count me in", "Alice: Bob?"])
        #expect(messages.map(\.author.id) == ["alice", "carol", "alice"])
        #expect(user == Participant(id: "bob", name: "Bob"))
        #expect(context.wantsReply)
        context.user = F.alice
        #expect(!context.wantsReply)  // the scheduler answers `.none` without asking the model
    }
}
