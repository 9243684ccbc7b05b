import ChatStore
import Foundation
import TestSupport
import Testing

/// Threads in the store (issue 24): replies stay out of the channel's page and its unread
/// count, the root carries the count, and each follower has a read position in the thread.
@Suite struct ThreadTests {
    @Test func repliesLiveInTheirThreadAndTheRootCountsThem() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        let root = try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "Which trail?")).message
        _ = try await store.sendMessage(NewMessage(cid: cid, author: "bob", text: "The ridge", parentID: root.id))
        let second = try await store.sendMessage(
            NewMessage(cid: cid, author: "alice", text: "Ridge it is", parentID: root.id)
        ).message
        let after = try await store.sendMessage(NewMessage(cid: cid, author: "bob", text: "Bring water")).message

        let page = try await store.messages(in: cid, for: "bob")
        #expect(page.messages.map(\.id) == [root.id, after.id])
        #expect(page.messages[0].replyCount == 2)
        #expect(page.messages[0].lastReplyAt == second.createdAt)
        #expect(page.messages[1].replyCount == nil)

        let thread = try await store.thread(of: root.id, for: "bob")
        #expect(thread.parent.id == root.id)
        #expect(thread.messages.map(\.text) == ["The ridge", "Ridge it is"])
        #expect(!thread.hasMore)
        // A reply's id opens the same thread.
        #expect(try await store.thread(of: second.id, for: "bob").parent.id == root.id)
        // Paging backwards.
        let older = try await store.thread(of: root.id, for: "bob", before: second.id, limit: 1)
        #expect(older.messages.map(\.text) == ["The ridge"])

        // No threads within threads, and none under a deleted message.
        await #expect(throws: ChatStoreError.self) {
            try await store.sendMessage(NewMessage(cid: cid, author: "bob", text: "nested", parentID: second.id))
        }
        _ = try await store.deleteMessage(after.id, by: "bob", asAdministrator: false)
        await #expect(throws: ChatStoreError.self) {
            try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "late", parentID: after.id))
        }
        // Carol is not a member: the thread does not exist for her.
        await #expect(throws: ChatStoreError.notFound(what: "message", id: root.id.rawValue)) {
            try await store.thread(of: root.id, for: "carol")
        }
        await #expect(throws: ChatStoreError.self) {
            try await store.markThreadRead("carol", thread: root.id)
        }
    }

    @Test func aThreadHasItsOwnUnreadStateAndRepliesLeaveTheChannelCountAlone() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        let root = try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "Who drives?")).message
        _ = try await store.markRead("bob", in: cid)
        // Bob replies: he follows the thread, and so does Alice, who started it.
        _ = try await store.sendMessage(NewMessage(cid: cid, author: "bob", text: "I can", parentID: root.id))
        var alice = try await summary(store, "alice", cid)
        #expect(alice.unreadCount == 0)
        #expect(alice.unreadThreads == 1)
        var page = try await store.messages(in: cid, for: "alice")
        #expect(page.unreadReplies == [ThreadUnread(parentID: root.id, count: 1)])
        #expect(try await store.thread(of: root.id, for: "alice").unread == 1)
        #expect(try await store.thread(of: root.id, for: "alice").following)
        // Bob's own reply is not unread for him.
        #expect(try await summary(store, "bob", cid).unreadThreads == 0)

        // A mention in a reply: Carol is not a member; Bob mentions Alice.
        _ = try await store.sendMessage(
            NewMessage(cid: cid, author: "bob", text: "@alice bring the map", parentID: root.id))
        alice = try await summary(store, "alice", cid)
        #expect(alice.unreadMentions == 1)
        #expect(alice.unreadCount == 0)

        let read = try await store.markThreadRead("alice", thread: root.id)
        #expect(read.changed)
        #expect(read.event != nil)
        #expect(try await store.markThreadRead("alice", thread: root.id).changed == false)
        alice = try await summary(store, "alice", cid)
        #expect(alice.unreadThreads == 0)
        #expect(alice.unreadMentions == 0)
        page = try await store.messages(in: cid, for: "alice")
        #expect(page.unreadReplies == nil)
        // The event goes to Alice alone.
        let events = try await store.events(for: "bob", after: 0)
        #expect(!events.map(\.type).contains(EventType.threadRead))
        #expect(try await store.events(for: "alice", after: 0).last?.type == EventType.threadRead)
    }

    @Test func replyingInAThreadLeavesTheChannelsUnreadMessagesUnread() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        let root = try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "Tent or hut?")).message
        _ = try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "And who drives?"))
        _ = try await store.sendMessage(NewMessage(cid: cid, author: "bob", text: "Tent", parentID: root.id))
        #expect(try await summary(store, "bob", cid).unreadCount == 2)
    }

    @Test func whoIsMentionedInAReplyFollowsTheThread() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        _ = try await store.addMembers(["carol"], to: cid, by: "alice", asAdministrator: true)
        let root = try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "Snacks?")).message
        _ = try await store.sendMessage(NewMessage(cid: cid, author: "bob", text: "Crisps", parentID: root.id))
        // Carol has no part in the thread: nothing in it is unread for her.
        #expect(try await summary(store, "carol", cid).unreadThreads == 0)
        #expect(try await !store.thread(of: root.id, for: "carol").following)
        _ = try await store.sendMessage(
            NewMessage(cid: cid, author: "bob", text: "@carol any allergies?", parentID: root.id))
        let carol = try await summary(store, "carol", cid)
        #expect(carol.unreadThreads == 1)
        #expect(carol.unreadMentions == 1)
        #expect(try await store.thread(of: root.id, for: "carol").unread == 1)
    }

    @Test func theModelReadsAThreadWithoutItsDeletedReplies() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        let root = try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "Lunch plan")).message
        let gone = try await store.sendMessage(
            NewMessage(cid: cid, author: "bob", text: "secret zanzibar", parentID: root.id)
        ).message
        _ = try await store.sendMessage(NewMessage(cid: cid, author: "bob", text: "Pizza", parentID: root.id))
        _ = try await store.deleteMessage(gone.id, by: "bob", asAdministrator: false)
        let read = try await store.recentThreadMessages(of: root.id, limit: 10)
        #expect(read.map(\.text) == ["Lunch plan", "Pizza"])
        // The channel's own context leaves replies out.
        #expect(try await store.recentMessages(in: cid, limit: 10).map(\.text) == ["Lunch plan"])
        // A deleted root keeps its replies' count on its tombstone.
        let tombstone = try await store.deleteMessage(root.id, by: "alice", asAdministrator: false)
        #expect(tombstone.replyCount == 2)
        #expect(try await store.recentThreadMessages(of: root.id, limit: 10).map(\.text) == ["Pizza"])
    }

    func summary(_ store: ChatStore, _ user: UserID, _ cid: ChannelID) async throws -> ChannelSummary {
        try #require(try await store.channels(for: user).first { $0.channel.cid == cid })
    }
}
