import ChatStore
import Foundation
import Testing

/// Message search (FTS5 candidates, the app's own ranking), the unread part of a channel, and
/// per-user preferences.
@Suite struct SearchTests {
    /// Alice and Bob share "hike", Carol has "work" alone; messages in order, ids m1, m2, ….
    func store(_ texts: [(channel: String, author: UserID, text: String)]) async throws -> ChatStore {
        let store = try await TemporaryStore().store
        _ = try await store.upsertUsers(
            [.init(id: "alice", name: "Alice"), .init(id: "bob", name: "Bob"), .init(id: "carol", name: "Carol")],
            by: nil)
        _ = try await store.getOrCreateChannel(
            ChannelID(type: "messaging", id: "hike"), name: "Hike", members: ["bob"], by: "alice")
        _ = try await store.getOrCreateChannel(
            ChannelID(type: "messaging", id: "work"), name: "Work", members: [], by: "carol")
        for (index, item) in texts.enumerated() {
            _ = try await store.sendMessage(
                NewMessage(
                    id: MessageID(rawValue: "m\(index + 1)"), cid: ChannelID(type: "messaging", id: item.channel),
                    author: item.author, text: item.text))
        }
        return store
    }

    @Test func ranksWholeWordsThenPrefixesThenPhrasesAndNewestFirst() async throws {
        let store = try await store([
            ("hike", "alice", "The trailhead parking lot at 8am?"),  // m1: trail (prefix), park (prefix), phrase
            ("hike", "bob", "Let's take the ridge trail."),  // m2: trail (whole word)
            ("hike", "alice", "Trail running is fun, and the park is close"),  // m3: trail, park (whole words)
            ("hike", "bob", "Our trail"),  // m4: trail (whole word), newer than m2
            ("hike", "bob", "Nothing to see here"),
        ])
        let hits = try await store.searchMessages("trail park", for: "alice")
        #expect(hits.map(\.message.id.rawValue) == ["m3", "m1", "m4", "m2"])
        #expect(hits.map(\.score) == [6, 6, 3, 3])  // m3 and m1 tie: the newer first
        #expect(hits.allSatisfy { $0.channelName == "Hike" })
        // The same query, the same order, every time.
        await #expect(try store.searchMessages("trail park", for: "alice") == hits)
        await #expect(
            try store.searchMessages("trail park", for: "alice", limit: 1).map(\.message.id.rawValue) == ["m3"])
    }

    @Test func findsOnlyTheUsersOwnChannels() async throws {
        let store = try await store([
            ("hike", "alice", "Budget for the hike"), ("work", "carol", "The budget is due Friday"),
        ])
        await #expect(try store.searchMessages("budget", for: "alice").map(\.message.id.rawValue) == ["m1"])
        await #expect(try store.searchMessages("budget", for: "carol").map(\.message.id.rawValue) == ["m2"])
        await #expect(try store.searchMessages("budget", for: "nobody").isEmpty)
    }

    @Test func ignoresCaseAndAccentsAndHighlightsInUTF16() async throws {
        let store = try await store([("hike", "bob", "👋 Café Zürich at noon, CAFÉ again")])
        let hit = try await #require(try store.searchMessages("cafe zurich", for: "alice").first)
        let text = hit.message.text as NSString
        let marked = hit.highlights.map { text.substring(with: NSRange(location: $0[0], length: $0[1] - $0[0])) }
        #expect(marked == ["Café", "Zürich", "CAFÉ"])
        #expect(hit.highlights.first == [3, 7])  // the emoji is two UTF-16 units, then a space
    }

    @Test func queriesAreWordsNeverFTSSyntax() async throws {
        let store = try await store([("hike", "alice", "NEAR the AND gate, \"quoted\" OR not")])
        for query in ["NEAR(", "a* OR", "-gate", "quoted\" OR \"x", "^and", "col:value"] {
            _ = try await store.searchMessages(query, for: "alice")  // never an FTS5 syntax error
        }
        await #expect(try store.searchMessages("gate\"", for: "alice").count == 1)
        for query in ["", "   ", "\"", "!!! ???", "***"] {
            await #expect(throws: ChatStoreError.self) { try await store.searchMessages(query, for: "alice") }
        }
    }

    @Test func newMessagesAreFoundAtOnce() async throws {
        let store = try await store([])
        await #expect(try store.searchMessages("lantern", for: "bob").isEmpty)
        _ = try await store.sendMessage(
            NewMessage(cid: ChannelID(type: "messaging", id: "hike"), author: "alice", text: "Bring a lantern"))
        await #expect(try store.searchMessages("lantern", for: "bob").count == 1)
    }

    @Test func theMessagesAfterAMessageAndAMessageForAMember() async throws {
        let hike = ChannelID(type: "messaging", id: "hike")
        let store = try await store([
            ("hike", "alice", "one"), ("hike", "bob", "two"), ("hike", "alice", "three"), ("hike", "bob", "four"),
            ("work", "carol", "elsewhere"),
        ])
        await #expect(
            try store.messages(in: hike, for: "alice", after: "m2", limit: 10).map(\.text) == ["three", "four"])
        await #expect(
            try store.messages(in: hike, for: "alice", after: "m1", limit: 2).map(\.text) == ["three", "four"])
        await #expect(
            try store.messages(in: hike, for: "alice", after: nil, limit: 3).map(\.text) == ["two", "three", "four"])
        await #expect(throws: ChatStoreError.self) {
            try await store.messages(in: hike, for: "alice", after: "m5", limit: 3)
        }
        await #expect(throws: ChatStoreError.self) {
            try await store.messages(in: hike, for: "carol", after: nil, limit: 3)
        }
        await #expect(try store.message("m1", for: "bob").text == "one")
        // Another channel's message is not found, the same as a missing one.
        await #expect(throws: ChatStoreError.notFound(what: "message", id: "m5")) {
            try await store.message("m5", for: "alice")
        }
        await #expect(throws: ChatStoreError.notFound(what: "message", id: "nope")) {
            try await store.message("nope", for: "alice")
        }
    }

    @Test func preferencesPerUser() async throws {
        let store = try await store([])
        await #expect(try store.preference("translation_language", for: "alice") == nil)
        try await store.setPreference("translation_language", to: "fr", for: "alice")
        try await store.setPreference("translation_language", to: "de", for: "bob")
        try await store.setPreference("translation_language", to: "es", for: "alice")
        await #expect(try store.preference("translation_language", for: "alice") == "es")
        await #expect(try store.preferences(for: "bob") == ["translation_language": "de"])
        try await store.setPreference("translation_language", to: nil, for: "alice")
        await #expect(try store.preference("translation_language", for: "alice") == nil)
        await #expect(throws: ChatStoreError.self) { try await store.setPreference("x", to: "y", for: "nobody") }
        await #expect(throws: ChatStoreError.self) {
            try await store.setPreference("x", to: String(repeating: "y", count: 65), for: "alice")
        }
    }
}
