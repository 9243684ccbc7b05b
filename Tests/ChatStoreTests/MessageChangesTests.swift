import ChatStore
import Foundation
import TestSupport
import Testing

/// Edits, deletions and reactions in the store (issue 24): who may, what the search index and
/// the event log keep, and what the model reads.
@Suite struct MessageChangesTests {
    @Test func anEditKeepsTheOldTextForTheAuthorAndSearchFindsTheNewOne() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        let sent = try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "Meet at the bakery"))
        // Edited in the same breath as it was sent: its words must leave the index all the same.
        let edited = try await store.editMessage(sent.message.id, text: "Meet at the harbour", by: "alice")
        #expect(edited.text == "Meet at the harbour")
        #expect(edited.editedAt != nil)
        await #expect(try store.searchMessages("harbour", for: "bob").map(\.message.id) == [sent.message.id])
        await #expect(try store.searchMessages("bakery", for: "bob").isEmpty)
        let edits = try await store.messageEdits(sent.message.id, for: "alice", asAdministrator: false)
        #expect(edits.map(\.text) == ["Meet at the bakery"])

        await #expect(throws: ChatStoreError.forbidden(reason: "only its author edits a message")) {
            try await store.editMessage(sent.message.id, text: "mine now", by: "bob")
        }
        await #expect(throws: ChatStoreError.self) {
            try await store.messageEdits(sent.message.id, for: "bob", asAdministrator: false)
        }
        // Carol is not in the channel: for her the message does not exist.
        await #expect(throws: ChatStoreError.notFound(what: "message", id: sent.message.id.rawValue)) {
            try await store.editMessage(sent.message.id, text: "hello", by: "carol")
        }
        let events = try await store.events(for: "bob", after: 0)
        #expect(events.map(\.type).suffix(2) == [EventType.messageNew, EventType.messageUpdated])
    }

    @Test func aDeletedMessageLeavesATombstoneAndItsTextLeavesStorage() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        let sent = try await store.sendMessage(NewMessage(cid: cid, author: "bob", text: "my secret plan zanzibar"))
        _ = try await store.editMessage(sent.message.id, text: "my secret plan zanzibar, revised", by: "bob")
        _ = try await store.react("👍", to: sent.message.id, by: "alice", adding: true)
        _ = try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "sounds good"))

        await #expect(throws: ChatStoreError.self) {
            try await store.deleteMessage(sent.message.id, by: "alice", asAdministrator: false)
        }
        let tombstone = try await store.deleteMessage(sent.message.id, by: "bob", asAdministrator: false)
        #expect(tombstone.text.isEmpty)
        #expect(tombstone.deletedAt != nil)
        #expect(tombstone.reactions == nil)
        let page = try await store.messages(in: cid, for: "alice")
        #expect(page.messages.map(\.id).contains(sent.message.id))
        #expect(page.messages.first { $0.id == sent.message.id }?.deletedAt != nil)
        await #expect(try store.searchMessages("zanzibar", for: "alice").isEmpty)
        // Never sent to the model again.
        await #expect(try !store.recentMessages(in: cid, limit: 10).contains { $0.id == sent.message.id })
        // Gone from the log's copies too: a client resuming from the start replays no text.
        let log = try await store.events(for: "alice", after: 0).map(\.payload).joined()
        #expect(!log.contains("zanzibar"))
        #expect(log.contains(#""type":"message.deleted""#))
        // Its edit history is gone with it.
        await #expect(try store.messageEdits(sent.message.id, for: "bob", asAdministrator: false).isEmpty)
        await #expect(throws: ChatStoreError.conflict(reason: "the message was deleted")) {
            try await store.editMessage(sent.message.id, text: "back", by: "bob")
        }
    }

    @Test func anAdministratorDeletesAnyMessageEvenOutsideTheChannel() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        let sent = try await store.sendMessage(NewMessage(cid: cid, author: "bob", text: "spam spam"))
        let tombstone = try await store.deleteMessage(sent.message.id, by: "carol", asAdministrator: true)
        #expect(tombstone.deletedAt != nil)
    }

    @Test func reactionsCountWhoGaveThemAndChangeOnlyWhenTheyChange() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        let sent = try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "Saturday?"))
        _ = try await store.react("👍", to: sent.message.id, by: "alice", adding: true)
        _ = try await store.react("🎉", to: sent.message.id, by: "bob", adding: true)
        let both = try await store.react("👍", to: sent.message.id, by: "bob", adding: true)
        #expect(
            both.reactions == [Reaction(emoji: "👍", users: ["alice", "bob"]), Reaction(emoji: "🎉", users: ["bob"])])
        let before = try await store.events(for: "alice", after: 0).count
        _ = try await store.react("👍", to: sent.message.id, by: "bob", adding: true)  // again: nothing
        await #expect(try store.events(for: "alice", after: 0).count == before)
        let taken = try await store.react("🎉", to: sent.message.id, by: "bob", adding: false)
        #expect(taken.reactions == [Reaction(emoji: "👍", users: ["alice", "bob"])])
        // Skin tones and joined sequences are one emoji; words, digits and pairs are not.
        _ = try await store.react("👍🏽", to: sent.message.id, by: "bob", adding: true)
        _ = try await store.react("👨‍👩‍👧", to: sent.message.id, by: "bob", adding: true)
        for bad in ["", "ok", "1", "👍👍", "<b>", "\u{202E}"] {
            await #expect(throws: ChatStoreError.self, "\(bad)") {
                try await store.react(bad, to: sent.message.id, by: "bob", adding: true)
            }
        }
        await #expect(throws: ChatStoreError.self) {
            try await store.react("👍", to: sent.message.id, by: "carol", adding: true)
        }
    }
}

/// `@user-id` mentions and the unread mentions each channel counts (issue 24).
@Suite struct MentionTests {
    @Test(arguments: [
        ("@alice are you in?", true), ("hey @Alice.", true), ("(@alice)", true), ("@alice, @bob", true),
        ("mail alice@alice.example", false), ("@alice2 is someone else", false), ("@alice.b too", false),
        ("@ali", false), ("alice", false), ("@alice-x", false), ("x@alice", false),
    ])
    func theRule(_ text: String, _ expected: Bool) {
        #expect(Mentions.mentions("alice", in: text) == expected, "\(text)")
    }

    @Test func unreadMentionsAreCountedPerChannelAndClearedByReading() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        _ = try await store.sendMessage(NewMessage(cid: cid, author: "bob", text: "@alice what time?"))
        _ = try await store.sendMessage(NewMessage(cid: cid, author: "bob", text: "no mention here"))
        let deleted = try await store.sendMessage(NewMessage(cid: cid, author: "bob", text: "@alice oops"))
        _ = try await store.deleteMessage(deleted.message.id, by: "bob", asAdministrator: false)
        let summary = try #require(try await store.channels(for: "alice").first { $0.channel.cid == cid })
        #expect(summary.unreadCount == 2)
        #expect(summary.unreadMentions == 1)
        _ = try await store.markRead("alice", in: cid)
        await #expect(try store.channels(for: "alice").first { $0.channel.cid == cid }?.unreadMentions == 0)
    }
}
