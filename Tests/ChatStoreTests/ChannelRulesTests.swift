import ChatStore
import Foundation
import Testing

/// Issue 27: a channel made by someone else under an id is never taken for the one asked for,
/// and its existence is nobody else's business; a member may leave.
@Suite struct ChannelRulesTests {
    static func store() async throws -> ChatStore {
        let store = try await TemporaryStore().store
        _ = try await store.upsertUsers(
            [.init(id: "alice", name: "Alice"), .init(id: "bob", name: "Bob"), .init(id: "mallory", name: "Mallory")],
            by: nil)
        return store
    }

    @Test func aSquattedChannelIsNeitherReturnedNorJoined() async throws {
        let store = try await Self.store()
        let cid = ChannelID(type: "messaging", id: "alice-bob")
        // Mallory makes the channel alice and bob would use, with herself in it.
        _ = try await store.getOrCreateChannel(cid, name: nil, members: ["alice", "bob"], by: "mallory")
        // Alice asks for it with bob: not the channel she asked for.
        await #expect(
            performing: { try await store.getOrCreateChannel(cid, name: nil, members: ["bob"], by: "alice") },
            throws: { error in
                if case .conflict? = error as? ChatStoreError { return true }
                return false
            })
        // Someone not in it learns nothing of it: not found, as a missing one.
        let other = ChannelID(type: "messaging", id: "mallory-only")
        _ = try await store.getOrCreateChannel(other, name: nil, members: [], by: "mallory")
        await #expect(throws: ChatStoreError.notFound(what: "channel", id: other.cid)) {
            try await store.getOrCreateChannel(other, name: nil, members: [], by: "alice")
        }
        // Asking for it with its exact members, or without members, opens it.
        #expect(
            try await store.getOrCreateChannel(cid, name: nil, members: ["bob", "mallory"], by: "alice").created
                == false)
        #expect(try await store.getOrCreateChannel(cid, name: nil, members: [], by: "alice").created == false)
    }

    @Test func distinctChannelsAreTheirMembers() async throws {
        let store = try await Self.store()
        let (made, created) = try await store.getOrCreateDistinctChannel(
            type: "messaging", name: nil, members: ["bob"], by: "alice")
        #expect(created)
        #expect(made.channel.cid == ChannelID.distinct(type: "messaging", members: ["alice", "bob"]))
        #expect(made.channel.cid.id.hasPrefix(ChannelID.distinctPrefix))
        let again = try await store.getOrCreateDistinctChannel(
            type: "messaging", name: nil, members: ["alice"], by: "bob")
        #expect(!again.created && again.detail.channel.cid == made.channel.cid)
        // Mallory's own set is another channel; she cannot choose an id of that form.
        let hers = try await store.getOrCreateDistinctChannel(
            type: "messaging", name: nil, members: ["alice", "bob"], by: "mallory")
        #expect(hers.detail.channel.cid != made.channel.cid)
        await #expect(throws: ChatStoreError.self) {
            try await store.getOrCreateChannel(made.channel.cid, name: nil, members: [], by: "mallory")
        }
    }

    @Test func leavingEndsReadingAndAMemberOfTheSetMayComeBack() async throws {
        let store = try await Self.store()
        let (made, _) = try await store.getOrCreateDistinctChannel(
            type: "messaging", name: nil, members: ["bob"], by: "alice")
        let cid = made.channel.cid
        _ = try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "before"))
        try await store.leaveChannel(cid, user: "bob")
        #expect(try await store.memberIDs(of: cid) == ["alice"])
        await #expect(throws: ChatStoreError.notMember(user: "bob", channel: cid)) {
            try await store.messages(in: cid, for: "bob", before: nil, limit: 10)
        }
        let events = try await store.events(for: "alice", after: 0)
        #expect(events.contains { $0.type == EventType.memberLeft })
        // Messages after the leave reach alice only.
        let sent = try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "after"))
        #expect(sent.recipients.contains("alice") && !sent.recipients.contains("bob"))
        await #expect(throws: ChatStoreError.self) { try await store.leaveChannel(cid, user: "bob") }
        // Bob asks for the channel of alice and himself again: it is his to rejoin.
        let back = try await store.getOrCreateDistinctChannel(
            type: "messaging", name: nil, members: ["alice"], by: "bob")
        #expect(!back.created && back.detail.members.map(\.user.id).contains("bob"))
        #expect(
            try await store.messages(in: cid, for: "bob", before: nil, limit: 10).messages.map(\.text) == [
                "before", "after",
            ])
    }
}
