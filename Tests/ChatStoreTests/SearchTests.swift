import ChatStore
import Foundation
import Testing

/// Message search (FTS5 candidates, the app's own ranking), the unread part of a channel, and
/// per-user preferences.
@Suite struct SearchTests {
    /// Alice and Bob share "hike", Carol has "work" alone; messages in order, ids m1, m2, ….
    func store(_ texts: [(channel: String, author: UserID, text: String)]) throws -> ChatStore {
        let store = try TemporaryStore().store
        _ = try store.upsertUsers(
            [.init(id: "alice", name: "Alice"), .init(id: "bob", name: "Bob"), .init(id: "carol", name: "Carol")],
            by: nil)
        _ = try store.getOrCreateChannel(
            ChannelID(type: "messaging", id: "hike"), name: "Hike", members: ["bob"], by: "alice")
        _ = try store.getOrCreateChannel(
            ChannelID(type: "messaging", id: "work"), name: "Work", members: [], by: "carol")
        for (index, item) in texts.enumerated() {
            _ = try store.sendMessage(
                NewMessage(
                    id: MessageID(rawValue: "m\(index + 1)"), cid: ChannelID(type: "messaging", id: item.channel),
                    author: item.author, text: item.text))
        }
        return store
    }

    @Test func ranksWholeWordsThenPrefixesThenPhrasesAndNewestFirst() throws {
        let store = try store([
            ("hike", "alice", "The trailhead parking lot at 8am?"),  // m1: trail (prefix), park (prefix), phrase
            ("hike", "bob", "Let's take the ridge trail."),  // m2: trail (whole word)
            ("hike", "alice", "Trail running is fun, and the park is close"),  // m3: trail, park (whole words)
            ("hike", "bob", "Our trail"),  // m4: trail (whole word), newer than m2
            ("hike", "bob", "Nothing to see here"),
        ])
        let hits = try store.searchMessages("trail park", for: "alice")
        #expect(hits.map(\.message.id.rawValue) == ["m3", "m1", "m4", "m2"])
        #expect(hits.map(\.score) == [6, 6, 3, 3])  // m3 and m1 tie: the newer first
        #expect(hits.allSatisfy { $0.channelName == "Hike" })
        // The same query, the same order, every time.
        #expect(try store.searchMessages("trail park", for: "alice") == hits)
        #expect(try store.searchMessages("trail park", for: "alice", limit: 1).map(\.message.id.rawValue) == ["m3"])
    }

    @Test func findsOnlyTheUsersOwnChannels() throws {
        let store = try store([("hike", "alice", "Budget for the hike"), ("work", "carol", "The budget is due Friday")])
        #expect(try store.searchMessages("budget", for: "alice").map(\.message.id.rawValue) == ["m1"])
        #expect(try store.searchMessages("budget", for: "carol").map(\.message.id.rawValue) == ["m2"])
        #expect(try store.searchMessages("budget", for: "nobody").isEmpty)
    }

    @Test func ignoresCaseAndAccentsAndHighlightsInUTF16() throws {
        let store = try store([("hike", "bob", "👋 Café Zürich at noon, CAFÉ again")])
        let hit = try #require(try store.searchMessages("cafe zurich", for: "alice").first)
        let text = hit.message.text as NSString
        let marked = hit.highlights.map { text.substring(with: NSRange(location: $0[0], length: $0[1] - $0[0])) }
        #expect(marked == ["Café", "Zürich", "CAFÉ"])
        #expect(hit.highlights.first == [3, 7])  // the emoji is two UTF-16 units, then a space
    }

    @Test func queriesAreWordsNeverFTSSyntax() throws {
        let store = try store([("hike", "alice", "NEAR the AND gate, \"quoted\" OR not")])
        for query in ["NEAR(", "a* OR", "-gate", "quoted\" OR \"x", "^and", "col:value"] {
            _ = try store.searchMessages(query, for: "alice")  // never an FTS5 syntax error
        }
        #expect(try store.searchMessages("gate\"", for: "alice").count == 1)
        for query in ["", "   ", "\"", "!!! ???", "***"] {
            #expect(throws: ChatStoreError.self) { try store.searchMessages(query, for: "alice") }
        }
    }

    @Test func newMessagesAreFoundAtOnce() throws {
        let store = try store([])
        #expect(try store.searchMessages("lantern", for: "bob").isEmpty)
        _ = try store.sendMessage(
            NewMessage(cid: ChannelID(type: "messaging", id: "hike"), author: "alice", text: "Bring a lantern"))
        #expect(try store.searchMessages("lantern", for: "bob").count == 1)
    }

    @Test func theMessagesAfterAMessageAndAMessageForAMember() throws {
        let hike = ChannelID(type: "messaging", id: "hike")
        let store = try store([
            ("hike", "alice", "one"), ("hike", "bob", "two"), ("hike", "alice", "three"), ("hike", "bob", "four"),
            ("work", "carol", "elsewhere"),
        ])
        #expect(try store.messages(in: hike, for: "alice", after: "m2", limit: 10).map(\.text) == ["three", "four"])
        #expect(try store.messages(in: hike, for: "alice", after: "m1", limit: 2).map(\.text) == ["three", "four"])
        #expect(
            try store.messages(in: hike, for: "alice", after: nil, limit: 3).map(\.text) == ["two", "three", "four"])
        #expect(throws: ChatStoreError.self) { try store.messages(in: hike, for: "alice", after: "m5", limit: 3) }
        #expect(throws: ChatStoreError.self) { try store.messages(in: hike, for: "carol", after: nil, limit: 3) }
        #expect(try store.message("m1", for: "bob").text == "one")
        // Another channel's message is not found, the same as a missing one.
        #expect(throws: ChatStoreError.notFound(what: "message", id: "m5")) { try store.message("m5", for: "alice") }
        #expect(throws: ChatStoreError.notFound(what: "message", id: "nope")) {
            try store.message("nope", for: "alice")
        }
    }

    @Test func preferencesPerUser() throws {
        let store = try store([])
        #expect(try store.preference("translation_language", for: "alice") == nil)
        try store.setPreference("translation_language", to: "fr", for: "alice")
        try store.setPreference("translation_language", to: "de", for: "bob")
        try store.setPreference("translation_language", to: "es", for: "alice")
        #expect(try store.preference("translation_language", for: "alice") == "es")
        #expect(try store.preferences(for: "bob") == ["translation_language": "de"])
        try store.setPreference("translation_language", to: nil, for: "alice")
        #expect(try store.preference("translation_language", for: "alice") == nil)
        #expect(throws: ChatStoreError.self) { try store.setPreference("x", to: "y", for: "nobody") }
        #expect(throws: ChatStoreError.self) {
            try store.setPreference("x", to: String(repeating: "y", count: 65), for: "alice")
        }
    }
}
