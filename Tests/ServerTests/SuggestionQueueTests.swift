import ChatIntelligence
import ChatStore
import TestSupport
import Testing

@testable import Server

/// The suggestion scheduler's decisions, without a model, tasks or timing: each step is a call
/// and its answer.
@Suite struct SuggestionQueueTests {
    typealias F = ContextFactory

    /// The queue under test, driven step by step (a class, so that `#expect` can call its
    /// mutating steps).
    final class Driver {
        var queue: SuggestionQueue

        init(maxRunning: Int = 1) {
            queue = SuggestionQueue(maxRunning: maxRunning)
        }

        func submit(_ context: ReplyContext) -> SuggestionQueue.Submission {
            queue.submit(
                key: .init(user: context.user.id, cid: context.channel.cid), signature: context.signature,
                wantsReply: context.wantsReply, context: context)
        }

        /// The next job; a test that expects one fails without it.
        func next() throws -> SuggestionQueue.Job {
            let job = queue.next()
            return try #require(job)
        }

        /// True when no job is left (the worker that asked retires).
        func retires() -> Bool { queue.next() == nil }

        /// Finishes `job` with chips; whether they were kept as current.
        func finish(_ job: SuggestionQueue.Job) -> Bool {
            queue.finish(job, with: SuggestionSnapshot(status: .ready, suggestions: ["ok"], signature: job.signature))
        }
    }

    @Test(.onTestThreads) func aRequestQueuesOneWorkerAndItsResultIsKept() throws {
        let queue = Driver()
        let context = F.context(messages: [(F.bob, "Lunch?")])
        let first = queue.submit(context)
        #expect(first == .init(snapshot: .init(status: .pending, signature: context.signature), startsWorker: true))
        // The same conversation again while it runs: pending, no second worker, no second job.
        let job = try queue.next()
        #expect(queue.submit(context).startsWorker == false)
        #expect(queue.finish(job))
        #expect(queue.retires())
        #expect(queue.queue.isIdle)
        // Answered from what was kept; nothing runs.
        #expect(queue.submit(context).snapshot.status == .ready)
        #expect(queue.queue.generations == 1)
    }

    @Test(.onTestThreads) func theNewestRequestRunsFirstAndOnlyTheNewestPerConversation() throws {
        let queue = Driver()
        let lunch = F.context(channel: "lunch", messages: [(F.bob, "Lunch?")])
        let hike = F.context(channel: "hike", messages: [(F.bob, "Hike?")])
        let hikeLater = F.context(channel: "hike", messages: [(F.bob, "Hike?"), (F.bob, "Saturday?")])
        #expect(queue.submit(lunch).startsWorker)
        #expect(!queue.submit(hike).startsWorker)  // one worker at most
        #expect(!queue.submit(hikeLater).startsWorker)
        let first = try queue.next()
        #expect(first.signature == hikeLater.signature)  // newest first; the older hike request is gone
        #expect(queue.finish(first))
        let second = try queue.next()
        #expect(second.signature == lunch.signature)
        #expect(queue.finish(second))
        #expect(queue.retires())
        #expect(queue.queue.generations == 2)
    }

    @Test(.onTestThreads) func aResultForAConversationThatMovedOnIsDropped() throws {
        let queue = Driver()
        let before = F.context(messages: [(F.bob, "Lunch?")])
        let after = F.context(messages: [(F.bob, "Lunch?"), (F.bob, "Or dinner?")])
        _ = queue.submit(before)
        let job = try queue.next()
        _ = queue.submit(after)
        #expect(!queue.queue.isCurrent(job.key, job.signature))  // partial chips of the old one are not shown
        #expect(!queue.finish(job))
        #expect(queue.queue.snapshot(for: job.key)?.status == .pending)
        let next = try queue.next()  // the same worker goes on with the newer request
        #expect(next.signature == after.signature)
    }

    @Test(.onTestThreads) func theUsersOwnMessageWithdrawsChipsOnlyWhenSomeWereShown() throws {
        let queue = Driver()
        let spoke = F.context(messages: [(F.bob, "Hi"), (F.alice, "Hello!")])
        #expect(queue.submit(spoke) == .init(snapshot: .init(status: .none, signature: spoke.signature)))
        let asked = F.context(messages: [(F.bob, "Lunch?")])
        _ = queue.submit(asked)
        let job = try queue.next()
        #expect(queue.finish(job))
        let answered = F.context(messages: [(F.bob, "Lunch?"), (F.alice, "Sure")])
        let withdrawn = queue.submit(answered)
        #expect(withdrawn.withdraws && withdrawn.snapshot.status == .none && !withdrawn.startsWorker)
    }

    @Test(.onTestThreads) func severalConversationsRunAtOnceUpToTheLimit() throws {
        let queue = Driver(maxRunning: 2)
        let contexts = (0..<3).map { F.context(channel: "c\($0)", messages: [(F.bob, "Question \($0)?")]) }
        #expect(contexts.map { queue.submit($0).startsWorker } == [true, true, false])
        let a = try queue.next()
        let b = try queue.next()
        #expect(a.signature == contexts[2].signature)  // newest first
        #expect(b.signature == contexts[1].signature)
        // A newer request for a running conversation waits for that run, not beside it.
        let c1Again = F.context(channel: "c1", messages: [(F.bob, "Question 1?"), (F.bob, "Well?")])
        #expect(!queue.submit(c1Again).startsWorker)
        #expect(queue.finish(a))
        let third = try queue.next()
        #expect(third.signature == contexts[0].signature)  // c1 is still running under b
        #expect(queue.finish(b) == false)  // c1 moved on while it ran
        let fourth = try queue.next()
        #expect(fourth.signature == c1Again.signature)
        #expect(queue.finish(third))
        #expect(queue.finish(fourth))
        #expect(queue.retires())
        #expect(queue.retires())
        #expect(queue.queue.isIdle)
    }
}
