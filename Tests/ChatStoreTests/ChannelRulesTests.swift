import ChatStore
import Foundation
import Testing

/// Issue 27: a channel made by someone else under an id is never taken for the one asked for,
/// and its existence is nobody else's business; a member may leave.
@Suite struct ChannelRulesTests {
    static func store() throws -> ChatStore {
        let store = try TemporaryStore().store
        _ = try store.upsertUsers(
            [.init(id: "alice", name: "Alice"), .init(id: "bob", name: "Bob"), .init(id: "mallory", name: "Mallory")],
            by: nil)
        return store
    }

    @Test func aSquattedChannelIsNeitherReturnedNorJoined() throws {
        let store = try Self.store()
        let cid = ChannelID(type: "messaging", id: "alice-bob")
        // Mallory makes the channel alice and bob would use, with herself in it.
        _ = try store.getOrCreateChannel(cid, name: nil, members: ["alice", "bob"], by: "mallory")
        // Alice asks for it with bob: not the channel she asked for.
        #expect(
            performing: { try store.getOrCreateChannel(cid, name: nil, members: ["bob"], by: "alice") },
            throws: { error in
                if case .conflict? = error as? ChatStoreError { return true }
                return false
            })
        // Someone not in it learns nothing of it: not found, as a missing one.
        let other = ChannelID(type: "messaging", id: "mallory-only")
        _ = try store.getOrCreateChannel(other, name: nil, members: [], by: "mallory")
        #expect(throws: ChatStoreError.notFound(what: "channel", id: other.cid)) {
            try store.getOrCreateChannel(other, name: nil, members: [], by: "alice")
        }
        // Asking for it with its exact members, or without members, opens it.
        #expect(
            try store.getOrCreateChannel(cid, name: nil, members: ["bob", "mallory"], by: "alice").created == false)
        #expect(try store.getOrCreateChannel(cid, name: nil, members: [], by: "alice").created == false)
    }

    @Test func distinctChannelsAreTheirMembers() throws {
        let store = try Self.store()
        let (made, created) = try store.getOrCreateDistinctChannel(
            type: "messaging", name: nil, members: ["bob"], by: "alice")
        #expect(created)
        #expect(made.channel.cid == ChannelID.distinct(type: "messaging", members: ["alice", "bob"]))
        #expect(made.channel.cid.id.hasPrefix(ChannelID.distinctPrefix))
        let again = try store.getOrCreateDistinctChannel(type: "messaging", name: nil, members: ["alice"], by: "bob")
        #expect(!again.created && again.detail.channel.cid == made.channel.cid)
        // Mallory's own set is another channel; she cannot choose an id of that form.
        let hers = try store.getOrCreateDistinctChannel(
            type: "messaging", name: nil, members: ["alice", "bob"], by: "mallory")
        #expect(hers.detail.channel.cid != made.channel.cid)
        #expect(throws: ChatStoreError.self) {
            try store.getOrCreateChannel(made.channel.cid, name: nil, members: [], by: "mallory")
        }
    }

    @Test func leavingEndsReadingAndAMemberOfTheSetMayComeBack() throws {
        let store = try Self.store()
        let (made, _) = try store.getOrCreateDistinctChannel(
            type: "messaging", name: nil, members: ["bob"], by: "alice")
        let cid = made.channel.cid
        _ = try store.sendMessage(NewMessage(cid: cid, author: "alice", text: "before"))
        try store.leaveChannel(cid, user: "bob")
        #expect(try store.memberIDs(of: cid) == ["alice"])
        #expect(throws: ChatStoreError.notMember(user: "bob", channel: cid)) {
            try store.messages(in: cid, for: "bob", before: nil, limit: 10)
        }
        let events = try store.events(for: "alice", after: 0)
        #expect(events.contains { $0.type == EventType.memberLeft })
        // Messages after the leave reach alice only.
        let sent = try store.sendMessage(NewMessage(cid: cid, author: "alice", text: "after"))
        #expect(sent.recipients.contains("alice") && !sent.recipients.contains("bob"))
        #expect(throws: ChatStoreError.self) { try store.leaveChannel(cid, user: "bob") }
        // Bob asks for the channel of alice and himself again: it is his to rejoin.
        let back = try store.getOrCreateDistinctChannel(type: "messaging", name: nil, members: ["alice"], by: "bob")
        #expect(!back.created && back.detail.members.map(\.user.id).contains("bob"))
        #expect(
            try store.messages(in: cid, for: "bob", before: nil, limit: 10).messages.map(\.text) == ["before", "after"])
    }
}
