import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStore

/// The PostgreSQL backend's own pieces: the SQL it rewrites and the values it reads back
/// (without a server), and a move from SQLite to PostgreSQL (with the test server).
@Suite struct PostgresTextTests {
    @Test(.onTestThreads) func placeholdersAreNumberedOutsideQuotesAndComments() {
        #expect(
            PostgresText.translate("SELECT a FROM t WHERE b = ? AND c = ?") == "SELECT a FROM t WHERE b = $1 AND c = $2"
        )
        #expect(
            PostgresText.translate("SELECT '?', \"x?\" FROM t WHERE b = ?") == "SELECT '?', \"x?\" FROM t WHERE b = $1")
        #expect(PostgresText.translate("SELECT 'it''s ?' WHERE b = ?") == "SELECT 'it''s ?' WHERE b = $1")
        #expect(PostgresText.translate("-- who? \nSELECT ?") == "-- who? \nSELECT $1")
        #expect(
            PostgresText.translate("VALUES (?1, MAX(?2, 0)) WHERE x = ?12") == "VALUES ($1, MAX($2, 0)) WHERE x = $12")
    }

    @Test(.onTestThreads) func sqliteSpellingsBecomePostgresOnes() {
        #expect(
            PostgresText.translate("SELECT SUM(length(CAST(text AS BLOB))) FROM m WHERE text LIKE ? ESCAPE '\\'")
                == "SELECT SUM(octet_length(text)) FROM m WHERE text ILIKE $1 ESCAPE '\\'")
    }

    @Test(.onTestThreads) func byteaHexIsDecoded() {
        let decode = { (text: String) in text.withCString { PostgresText.bytea($0, count: text.utf8.count) } }
        #expect(decode("\\x00ff7A") == [0x00, 0xFF, 0x7A])
        #expect(decode("\\x") == [])
        #expect(decode("plain") == [])
    }

    @Test(.onTestThreads) func databaseURLsChooseTheBackendAndHideThePassword() {
        #expect(ChatStore.Location("/srv/chat.sqlite") == .sqlite(path: "/srv/chat.sqlite"))
        let url = "postgresql://sotto:secret@db.internal:5432/chat"
        #expect(ChatStore.Location(url) == .postgresql(url: url))
        #expect(ChatStore.Location("postgres://db/chat") == .postgresql(url: "postgres://db/chat"))
        #expect(ChatStore.Location(url).description == "postgresql://db.internal:5432/chat")
    }

    @Test(.onTestThreads) func postgresErrorsAnswerTheQuestionsSQLiteOnesDo() {
        let unique = DatabaseError(
            resultCode: DatabaseError.sqliteCode(for: "23505"), message: "dup", sqlState: "23505")
        #expect(unique.isConstraintViolation)
        #expect(unique.description.hasPrefix("PostgreSQL error 23505"))
        #expect(
            DatabaseError(resultCode: DatabaseError.sqliteCode(for: "40P01"), message: "", sqlState: "40P01").isBusy)
        #expect(
            !DatabaseError(resultCode: DatabaseError.sqliteCode(for: "42P01"), message: "", sqlState: "42P01").isBusy)
    }

    @Test func aCopyListsEveryTableOfTheSchema() async throws {
        let folder = try TestFolders.make("tables")
        _ = try await ChatStore.open(path: folder + "/chat.sqlite")
        let db = try Connection(path: folder + "/chat.sqlite", readOnly: true)
        let tables = try ChatStore.tables(of: db)
        #expect(tables.contains("messages") && tables.contains("message_search_state"))
        #expect(!tables.contains { $0.hasPrefix("sqlite_") || $0 == "message_search" })
        #expect(Set(tables) == Set(ChatStore.copiedTables))
        #expect(Set(ChatStore.copiedTables).count == ChatStore.copiedTables.count)
    }
}

/// `sotto db copy`: a team's SQLite store moved to PostgreSQL reads the same there, and goes on.
@Suite(
    .enabled(if: TestDatabases.onPostgres, "needs SOTTO_TEST_POSTGRES: a PostgreSQL server (scripts/test starts one)"))
struct StoreCopyTests {
    @Test func aCopyReadsTheSameAndContinuesWhereTheSQLiteStoreStopped() async throws {
        let folder = try TestFolders.make("copy")
        let path = folder + "/chat.sqlite"
        let source = try await ChatStore.open(path: path)
        _ = try await source.upsertUsers(
            [.init(id: "alice", name: "Alice"), .init(id: "bob", name: "Bob"), .init(id: "carol", name: "Carol")],
            by: nil)
        let cid = ChannelID(type: "messaging", id: "hike")
        _ = try await source.getOrCreateChannel(cid, name: "Hike", members: ["bob"], by: "alice")
        _ = try await source.sendMessage(
            NewMessage(id: "m1", cid: cid, author: "alice", text: "Meet at the lighthouse trail"))
        _ = try await source.sendMessage(NewMessage(id: "m2", cid: cid, author: "bob", text: "Lighthouse at nine? 👍"))
        _ = try await source.sendMessage(
            NewMessage(id: "r1", cid: cid, author: "alice", text: "Nine works", parentID: "m2"))
        _ = try await source.react("👍", to: "m1", by: "bob", adding: true)
        _ = try await source.markRead("bob", in: cid, upTo: "m1")
        let conversation = try await source.createAssistantConversation(
            for: "alice", title: "Trip", settings: AssistantStoreTests.general)
        let photo = AssistantImage(mimeType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47, 0, 1, 2])
        _ = try await source.appendAssistantMessage(
            .init(role: .user, text: "What should I pack?", images: [photo]), to: conversation.id, for: "alice")
        _ = try await source.appendAssistantMessage(
            .init(role: .assistant, text: "Water and a jacket.", inputTokens: 12, outputTokens: 5, model: "m"),
            to: conversation.id, for: "alice")

        let location = try TestDatabases.location(in: folder)
        guard case .postgresql(let url) = location else {
            Issue.record("not on PostgreSQL")
            return
        }
        let report = try await ChatStore.copy(fromSQLite: path, to: url)
        #expect(report.rows.map(\.table) == ChatStore.copiedTables)
        #expect(report.rows.first { $0.table == "messages" }?.count == 3)
        #expect(report.rows.first { $0.table == "assistant_images" }?.count == 1)

        let target = try await ChatStore.open(location)
        for user: UserID in ["alice", "bob", "carol"] {
            await #expect(try target.channels(for: user) == source.channels(for: user))
            await #expect(try target.events(for: user, after: 0) == source.events(for: user, after: 0))
        }
        await #expect(try target.messages(in: cid, for: "bob") == source.messages(in: cid, for: "bob"))
        await #expect(try target.eventCursor() == source.eventCursor())
        await #expect(
            try target.searchMessages("lighthouse", for: "bob").map(\.message.id.rawValue).sorted() == ["m1", "m2"])
        await #expect(try target.assistantConversations(for: "alice") == source.assistantConversations(for: "alice"))
        await #expect(
            try target.assistantMessages(in: conversation.id, for: "alice")
                == source.assistantMessages(in: conversation.id, for: "alice"))
        await #expect(try target.assistantImage(photo.id, for: "alice").bytes == photo.bytes)
        await #expect(try target.searchAssistantMessages("jacket", for: "alice").count == 1)

        // New rows continue the copied numbering: a message after the last, events after the last seq,
        // a conversation above the copied one.
        let before = try await target.eventCursor()
        _ = try await target.sendMessage(NewMessage(id: "m3", cid: cid, author: "bob", text: "On my way"))
        await #expect(try target.messages(in: cid, for: "bob").messages.map(\.id) == ["m1", "m2", "m3"])
        let after = try await target.events(for: "alice", after: before.lastSeq)
        #expect(!after.isEmpty && after.allSatisfy { $0.seq > before.lastSeq })
        let newer = try await target.createAssistantConversation(
            for: "alice", title: "Later", settings: AssistantStoreTests.general)
        await #expect(try target.assistantConversations(for: "alice").map(\.id) == [newer.id, conversation.id])

        // A second copy into a database that holds users is refused and changes nothing.
        await #expect(throws: ChatStoreError.self) { try await ChatStore.copy(fromSQLite: path, to: url) }
        await #expect(try target.message("m3") != nil)
    }
}

/// Several servers on one PostgreSQL database: each store's sink gets every event, its own
/// from its writer and the others' from the feed, once each.
@Suite(
    .enabled(if: TestDatabases.onPostgres, "needs SOTTO_TEST_POSTGRES: a PostgreSQL server (scripts/test starts one)"))
struct SharedDatabaseTests {
    /// What a sink was handed, in order.
    final class Received: Sendable {
        let events = Mutex<[AppendedEvent]>([])
        func add(_ event: AppendedEvent) { events.withLock { $0.append(event) } }
        var seqs: [Int64] { events.withLock { $0.map(\.seq) } }
    }

    @Test func eachServerGetsEveryEventOnceWithItsRecipients() async throws {
        let temporary = try await TemporaryStore()
        let cid = try await temporary.seeded()
        let first = temporary.store
        let second = try await temporary.reopen()
        let (atFirst, atSecond) = (Received(), Received())
        first.deliverEvents { atFirst.add($0) }
        second.deliverEvents { atSecond.add($0) }
        try await Task.sleep(for: .milliseconds(300))  // the feeds are listening

        // Both write at once, in the same channel and to one user.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, store) in [first, second].enumerated() {
                group.addTask {
                    for n in 0..<40 {
                        _ = try await store.sendMessage(
                            NewMessage(
                                id: MessageID(rawValue: "s\(index)-\(n)"), cid: cid,
                                author: index == 0 ? "alice" : "bob",
                                text: "hello \(n)"))
                    }
                }
            }
            try await group.waitForAll()
        }
        let cursor = try await first.eventCursor()
        let all = try await first.events(for: "alice", after: 0).map(\.seq)
        #expect(all.count == 80)
        // Each sink ends with every seq once; the feed's arrive in seq order.
        for received in [atFirst, atSecond] {
            try await waitUntil { received.seqs.count >= 80 }
            #expect(received.seqs.sorted() == all)
            #expect(Set(received.seqs).count == received.seqs.count)
        }
        let fromFeed = atSecond.events.withLock { $0.filter(\.fromAnotherServer) }
        #expect(fromFeed.count == 40)
        #expect(fromFeed.map(\.seq) == fromFeed.map(\.seq).sorted())
        // The feed names the recipients the writer named, and the JSON is the same.
        func bySeq(_ received: Received) -> [Int64: (Set<UserID>, String)] {
            received.events.withLock {
                Dictionary(uniqueKeysWithValues: $0.map { ($0.seq, (Set($0.recipients.map(\.user)), $0.json)) })
            }
        }
        let (one, two) = (bySeq(atFirst), bySeq(atSecond))
        #expect(all.allSatisfy { one[$0]?.0 == two[$0]?.0 && one[$0]?.1 == two[$0]?.1 })
        #expect(one.values.contains { $0.0 == ["alice", "bob"] })
        #expect(cursor.lastSeq == all.last)

        // A member who leaves gets nothing more from either server.
        try await second.leaveChannel(cid, user: "bob")
        let left = try await first.eventCursor().lastSeq
        _ = try await first.sendMessage(NewMessage(id: "after", cid: cid, author: "alice", text: "still here?"))
        try await waitUntil { atSecond.seqs.contains { $0 > left } }
        #expect(
            atSecond.events.withLock {
                $0.filter { $0.seq > left }.allSatisfy { !$0.recipients.contains { $0.user == "bob" } }
            })
    }

    private func waitUntil(_ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
