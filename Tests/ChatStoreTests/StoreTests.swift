import ChatStore
import Foundation
import TestSupport
import Testing

@Suite struct UserAndChannelTests {
    @Test func migrationsRunOnceAndSurviveReopening() async throws {
        let temporary = try await TemporaryStore()
        let applied = try await temporary.store.appliedMigrations()
        #expect(applied.count == 14)
        #expect(applied.last == "v14: attachments")
        let reopened = try await temporary.reopen()
        await #expect(try reopened.appliedMigrations() == applied)
    }

    @Test func upsertCreatesAndRenamesOnlyYourself() async throws {
        let store = try await TemporaryStore().store
        let created = try await store.upsertUsers([.init(id: "alice", name: " Alice ")], by: "alice")
        #expect(created.map(\.name) == ["Alice"])
        // Creating someone else is an administrator's act (actor nil), not any user's.
        await #expect(throws: ChatStoreError.self) {
            try await store.upsertUsers([.init(id: "bob", name: "Bob")], by: "alice")
        }
        await #expect(try store.user("bob") == nil)
        _ = try await store.upsertUsers([.init(id: "bob", name: "Bob")], by: nil)
        let renamed = try await store.upsertUsers([.init(id: "alice", name: "Alice L.")], by: "alice")
        #expect(renamed.first?.name == "Alice L.")
        await #expect(throws: ChatStoreError.self) {
            try await store.upsertUsers([.init(id: "bob", name: "Robert")], by: "alice")
        }
        await #expect(try store.user("bob")?.name == "Bob")
    }

    @Test(arguments: ["", "has space", "semi;colon", String(repeating: "x", count: 65), "émile"])
    func invalidUserIDsAreRejected(id: String) async throws {
        let store = try await TemporaryStore().store
        await #expect(throws: ChatStoreError.self) {
            try await store.upsertUsers([.init(id: UserID(rawValue: id), name: "X")], by: nil)
        }
    }

    @Test(
        .onTestThreads, arguments: ["messaging", "Messaging:x", "messaging:", ":x", "messaging:a b", "messaging:a/b"])
    func malformedChannelIDsAreRejected(text: String) {
        #expect(throws: ChatStoreError.self) { try ChannelID.parse(text) }
    }

    @Test func getOrCreateReturnsTheExistingChannelToMembersOnly() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        let again = try await store.getOrCreateChannel(cid, name: "Renamed?", members: [], by: "bob")
        #expect(again.created == false)
        #expect(again.detail.channel.name == "Hike")
        #expect(again.detail.members.map(\.user.id) == ["alice", "bob"])
        await #expect(throws: ChatStoreError.notFound(what: "channel", id: cid.cid)) {
            try await store.getOrCreateChannel(cid, name: nil, members: [], by: "carol")
        }
        await #expect(throws: ChatStoreError.notFound(what: "user", id: "zed")) {
            try await store.getOrCreateChannel(
                ChannelID(type: "messaging", id: "new"), name: nil, members: ["zed"], by: "alice")
        }
        await #expect(try store.channel(ChannelID(type: "messaging", id: "new")) == nil)
    }
}

@Suite struct MessageTests {
    @Test func sendingIsIdempotentByID() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        let first = try await store.sendMessage(NewMessage(id: "m-1", cid: cid, author: "alice", text: "Hi"))
        let retry = try await store.sendMessage(NewMessage(id: "m-1", cid: cid, author: "alice", text: "Hi"))
        #expect(first.created && !retry.created)
        #expect(retry.message == first.message)
        await #expect(try store.messages(in: cid, for: "bob").messages.count == 1)
        await #expect(try store.eventCursor().lastSeq == 1)  // one message.new, not two
        await #expect(
            throws: ChatStoreError.conflict(reason: "message id 'm-1' is already used for a different message")
        ) {
            try await store.sendMessage(NewMessage(id: "m-1", cid: cid, author: "alice", text: "Different"))
        }
        await #expect(throws: ChatStoreError.self) {
            try await store.sendMessage(NewMessage(id: "m-1", cid: cid, author: "bob", text: "Hi"))
        }
    }

    @Test func nonMembersCannotSendOrRead() async throws {
        let temporary = try await TemporaryStore()
        let cid = try await temporary.seeded()
        await #expect(throws: ChatStoreError.notMember(user: "carol", channel: cid)) {
            try await temporary.store.sendMessage(NewMessage(cid: cid, author: "carol", text: "let me in"))
        }
        await #expect(throws: ChatStoreError.notMember(user: "carol", channel: cid)) {
            try await temporary.store.messages(in: cid, for: "carol")
        }
        let missing = ChannelID(type: "messaging", id: "nope")
        await #expect(throws: ChatStoreError.notFound(what: "channel", id: "messaging:nope")) {
            try await temporary.store.messages(in: missing, for: "alice")
        }
    }

    @Test func emptyAndOverlongTextIsRejected() async throws {
        let temporary = try await TemporaryStore()
        let cid = try await temporary.seeded()
        await #expect(throws: ChatStoreError.self) {
            try await temporary.store.sendMessage(NewMessage(cid: cid, author: "alice", text: " \n"))
        }
        let long = String(repeating: "a", count: ChatStore.maxMessageLength + 1)
        await #expect(throws: ChatStoreError.self) {
            try await temporary.store.sendMessage(NewMessage(cid: cid, author: "alice", text: long))
        }
    }

    @Test func historyPagesBackwardsByMessageID() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        for index in 0..<25 {
            _ = try await store.sendMessage(
                NewMessage(
                    id: MessageID(rawValue: "m\(index)"), cid: cid, author: index % 2 == 0 ? "alice" : "bob",
                    text: "#\(index)"))
        }
        let newest = try await store.messages(in: cid, for: "alice", limit: 10)
        #expect(newest.messages.map(\.text) == (15..<25).map { "#\($0)" })
        #expect(newest.hasMore)
        let middle = try await store.messages(in: cid, for: "alice", before: newest.messages.first!.id, limit: 10)
        #expect(middle.messages.map(\.text) == (5..<15).map { "#\($0)" })
        let oldest = try await store.messages(in: cid, for: "alice", before: middle.messages.first!.id, limit: 10)
        #expect(oldest.messages.map(\.text) == (0..<5).map { "#\($0)" })
        #expect(!oldest.hasMore)
        await #expect(throws: ChatStoreError.notFound(what: "message", id: "nope")) {
            try await store.messages(in: cid, for: "alice", before: "nope")
        }
    }

    @Test func threadRepliesNeedAParentInTheSameChannel() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        let root = try await store.sendMessage(NewMessage(id: "root", cid: cid, author: "alice", text: "Plan?")).message
        let reply = try await store.sendMessage(NewMessage(cid: cid, author: "bob", text: "Yes", parentID: root.id))
            .message
        #expect(reply.parentID == "root")
        await #expect(throws: ChatStoreError.notFound(what: "parent message", id: "ghost")) {
            try await store.sendMessage(NewMessage(cid: cid, author: "bob", text: "?", parentID: "ghost"))
        }
    }

    @Test func unreadCountsFollowReadState() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        for index in 0..<3 {
            _ = try await store.sendMessage(
                NewMessage(id: MessageID(rawValue: "a\(index)"), cid: cid, author: "alice", text: "hi \(index)"))
        }
        await #expect(try store.channels(for: "bob").first?.unreadCount == 3)
        await #expect(try store.channels(for: "alice").first?.unreadCount == 0)  // own messages are read
        let partial = try await store.markRead("bob", in: cid, upTo: "a0")
        #expect(partial.changed && partial.read.lastReadMessageID == "a0")
        await #expect(try store.channels(for: "bob").first?.unreadCount == 2)
        let all = try await store.markRead("bob", in: cid)
        #expect(all.read.lastReadMessageID == "a2")
        await #expect(try store.channels(for: "bob").first?.unreadCount == 0)
        let backwards = try await store.markRead("bob", in: cid, upTo: "a1")
        #expect(!backwards.changed && backwards.read.lastReadMessageID == "a2")
        let summary = try await #require(try store.channels(for: "bob").first)
        #expect(summary.lastMessage?.id == "a2")
        #expect(summary.members.map(\.id) == ["alice", "bob"])
    }

    @Test func textWithNULsAndEmojiRoundTrips() async throws {
        let temporary = try await TemporaryStore()
        let cid = try await temporary.seeded()
        let text = "a\u{0}b 👩‍👩‍👧 é\u{0}"
        if TestDatabases.onPostgres {
            // PostgreSQL's text has no NUL: the message is refused whole, not cut short.
            await #expect(
                throws: ChatStoreError.invalidArgument(
                    field: "text", reason: "holds a NUL character, which PostgreSQL cannot store")
            ) {
                try await temporary.store.sendMessage(NewMessage(id: "nul", cid: cid, author: "alice", text: text))
            }
            await #expect(try temporary.store.message("nul") == nil)
            return
        }
        _ = try await temporary.store.sendMessage(NewMessage(id: "nul", cid: cid, author: "alice", text: text))
        await #expect(try temporary.store.message("nul")?.text == text)
        let retry = try await temporary.store.sendMessage(NewMessage(id: "nul", cid: cid, author: "alice", text: text))
        #expect(!retry.created)
    }

    @Test func acknowledgedMessagesSurviveReopening() async throws {
        let temporary = try await TemporaryStore()
        let cid = try await temporary.seeded()
        _ = try await temporary.store.sendMessage(NewMessage(id: "kept", cid: cid, author: "alice", text: "still here"))
        let reopened = try await temporary.reopen()
        await #expect(try reopened.message("kept")?.text == "still here")
    }
}

@Suite struct EventLogTests {
    struct Typing: Encodable { var user_id: String }

    @Test func membersShareNumberedEventsAndSeeOnlyTheirOwn() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        _ = try await store.sendMessage(NewMessage(id: "m1", cid: cid, author: "alice", text: "one"))
        _ = try await store.markRead("bob", in: cid)
        try await store.recordEvent(
            type: EventType.typingStart, fields: Typing(user_id: "bob"), to: .channel(cid, except: "bob"),
            ephemeral: true)
        let alice = try await store.events(for: "alice", after: 0)
        #expect(alice.map(\.seq) == [1, 2, 3])
        #expect(alice.map(\.type) == ["message.new", "message.read", "typing.start"])
        // Bob is not sent his own typing; carol is in no channel.
        await #expect(try store.events(for: "bob", after: 0).map(\.seq) == [1, 2])
        await #expect(try store.events(for: "bob", after: 1).map(\.type) == ["message.read"])
        await #expect(try store.events(for: "carol", after: 0).isEmpty)
        let json = try JSONSerialization.jsonObject(with: Data(alice[2].json.utf8)) as? [String: Any]
        #expect(json?["seq"] as? Int == 3)
        #expect(json?["user_id"] as? String == "bob")
        #expect(json?["cid"] as? String == "messaging:hike")
        let message = try JSONSerialization.jsonObject(with: Data(alice[0].json.utf8)) as? [String: Any]
        #expect((message?["message"] as? [String: Any])?["text"] as? String == "one")
    }

    @Test func anotherChannelsEventsAreGapsInALog() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let hike = try await temporary.seeded()
        let lunch = ChannelID(type: "messaging", id: "lunch")
        _ = try await store.getOrCreateChannel(lunch, name: "Lunch", members: ["carol"], by: "bob")
        _ = try await store.sendMessage(NewMessage(cid: hike, author: "alice", text: "1"))
        _ = try await store.sendMessage(NewMessage(cid: lunch, author: "carol", text: "2"))
        try await store.recordEvent(
            type: EventType.suggestionsUpdated, fields: Typing(user_id: "carol"), to: .user("carol", cid: lunch),
            ephemeral: true)
        _ = try await store.sendMessage(NewMessage(cid: hike, author: "bob", text: "4"))
        await #expect(try store.events(for: "alice", after: 0).map(\.seq) == [1, 4])
        await #expect(try store.events(for: "bob", after: 0).map(\.seq) == [1, 2, 4])
        await #expect(try store.events(for: "carol", after: 0).map(\.seq) == [2, 3])
        await #expect(try store.events(for: "carol", after: 2).map(\.type) == [EventType.suggestionsUpdated])
        // A page of a merged log is its first events, in order, whichever channel they came from.
        await #expect(try store.events(for: "bob", after: 0, limit: 2).map(\.seq) == [1, 2])
    }

    @Test func anAppendedEventNamesEachRecipientsPreviousEvent() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        let first = try await #require(try store.sendMessage(NewMessage(cid: cid, author: "alice", text: "1")).event)
        // Nothing was appended for them since the store was opened: the store does not know.
        #expect(first.recipients == [.init(user: "alice", previous: nil), .init(user: "bob", previous: nil)])
        let typing = try await store.recordEvent(
            type: EventType.typingStart, fields: Typing(user_id: "bob"), to: .channel(cid, except: "bob"),
            ephemeral: true)
        let second = try await #require(try store.sendMessage(NewMessage(cid: cid, author: "bob", text: "3")).event)
        #expect(second.seq == 3)
        if TestDatabases.onPostgres {
            // Other servers may append to a PostgreSQL log between two of this store's events: it
            // never names a previous one there (each socket reads its log), and its members are
            // read in each write.
            #expect(typing.recipients == [.init(user: "alice", previous: nil)])
            #expect(second.recipients == [.init(user: "alice", previous: nil), .init(user: "bob", previous: nil)])
        } else {
            #expect(typing.recipients == [.init(user: "alice", previous: 1)])
            #expect(second.recipients == [.init(user: "alice", previous: 2), .init(user: "bob", previous: 1)])
        }
        let sent = try JSONSerialization.jsonObject(with: Data(second.json.utf8)) as? [String: Any]
        #expect(sent?["seq"] as? Int == 3 && sent?["type"] as? String == "message.new")
    }

    @Test func pruningOldEventsForcesResync() async throws {
        var options = ChatStore.Options()
        options.eventRetention = .seconds(60)
        let temporary = try await TemporaryStore(options: options)
        let store = temporary.store
        let cid = try await temporary.seeded()
        for index in 0..<3 { _ = try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "\(index)")) }
        await #expect(try store.eventCursor().canResume(since: 0))
        try await store.pruneEvents(now: Timestamp(milliseconds: Timestamp.now.milliseconds + 120_000))
        let cursor = try await store.eventCursor()
        #expect(cursor.lastSeq == 3 && cursor.prunedThrough == 3)
        #expect(!cursor.canResume(since: 1))
        #expect(cursor.canResume(since: 3))
        #expect(!cursor.canResume(since: 4))  // from the future: another database
        await #expect(try store.events(for: "bob", after: 0).isEmpty)
        // Numbering goes on after the pruned events, even with the log empty and the store reopened.
        let reopened = try await temporary.reopen(options: options)
        await #expect(try reopened.sendMessage(NewMessage(cid: cid, author: "bob", text: "later")).event?.seq == 4)
    }

    @Test func staleEphemeralEventsAreNotReplayed() async throws {
        var options = ChatStore.Options()
        options.ephemeralRetention = .zero
        let temporary = try await TemporaryStore(options: options)
        let store = temporary.store
        let cid = try await temporary.seeded()
        try await store.recordEvent(
            type: EventType.typingStart, fields: Typing(user_id: "bob"), to: .channel(cid, except: "bob"),
            ephemeral: true)
        try? await Task.sleep(for: .seconds(0.01))
        _ = try await store.sendMessage(NewMessage(cid: cid, author: "bob", text: "hi"))
        await #expect(try store.events(for: "alice", after: 0).map(\.seq) == [2])
        try await store.pruneEvents()
        await #expect(try store.eventCursor() == EventCursor(lastSeq: 2, prunedThrough: 0))
    }

    /// A database of the per-user logs (v5): clients hold per-user seqs, none above the old
    /// highest event id, so all of them resume from there or get a resync.
    @Test func theOldPerUserLogsMigrateToAResyncPoint() async throws {
        let folder = try TestFolders.make("store")
        let path = folder + "/chat.sqlite"
        do {
            let old = try Connection(path: path)
            try Schema.migrator.through("v5: assistant uploads").migrate(old)
            try old.execute(
                """
                INSERT INTO users(id, name, created_at, updated_at, last_seq) VALUES ('alice', 'Alice', 0, 0, 2);
                INSERT INTO channels(cid, type, name, created_by, created_at) VALUES ('messaging:hike', 'messaging', 'Hike', 'alice', 0);
                INSERT INTO members(cid, user_id, joined_at) VALUES ('messaging:hike', 'alice', 0);
                INSERT INTO events(id, type, cid, payload, ephemeral, created_at) VALUES
                    (6, 'message.new', 'messaging:hike', '{}', 0, 0), (7, 'message.new', 'messaging:hike', '{}', 0, 0);
                INSERT INTO user_events(user_id, seq, event_id) VALUES ('alice', 1, 6), ('alice', 2, 7);
                """)
        }
        let store = try await ChatStore.open(path: path)
        let cursor = try await store.eventCursor()
        #expect(cursor == EventCursor(lastSeq: 7, prunedThrough: 7))
        #expect(!cursor.canResume(since: 2))
        await #expect(try store.user("alice")?.name == "Alice")
        let cid = ChannelID(type: "messaging", id: "hike")
        await #expect(try store.sendMessage(NewMessage(cid: cid, author: "alice", text: "new")).event?.seq == 8)
        await #expect(try store.events(for: "alice", after: 7).map(\.seq) == [8])
    }
}

@Suite struct ConcurrentWriteTests {
    @Test func concurrentWritesCommitTogetherAndFailAlone() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        let failures = Counter()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    // Every tenth send names a parent that does not exist and must fail on its own.
                    let parent: MessageID? = index % 10 == 9 ? "missing-parent" : nil
                    do {
                        _ = try await store.sendMessage(
                            NewMessage(
                                id: MessageID(rawValue: "c\(index)"), cid: cid,
                                author: index % 2 == 0 ? "alice" : "bob", text: "#\(index)", parentID: parent))
                    } catch {
                        failures.increment()
                    }
                }
            }
        }
        #expect(failures.value == 20)
        let stored = try await store.messages(in: cid, for: "alice", limit: 200).messages
        #expect(stored.count == 180)
        #expect(Set(stored.map(\.id.rawValue)) == Set((0..<200).filter { $0 % 10 != 9 }.map { "c\($0)" }))
        // One event per stored message: a write rolled back gives its seq back.
        await #expect(try store.eventCursor().lastSeq == 180)
        await #expect(try store.events(for: "bob", after: 0, limit: 500).map(\.seq) == Array(1...180))
        let reopened = try await temporary.reopen()
        await #expect(try reopened.messages(in: cid, for: "bob", limit: 200).messages.count == 180)
    }
}

@Suite struct MessageJSONTests {
    /// The message is encoded once for the event and the API's answer: both hold it whole,
    /// whatever its text, and the event's other members are those of any event.
    @Test func theEventAndTheAnswerHoldTheSameMessage() async throws {
        let temporary = try await TemporaryStore()
        let cid = try await temporary.seeded()
        let text = "\"quoted\" back\\slash\nnew line\ttab \u{1} é 😀 </script> {\"a\":1}"
        let result = try await temporary.store.sendMessage(
            NewMessage(id: "j1", cid: cid, author: "alice", text: text, parentID: nil))
        let decoded = try JSONDecoder().decode(Message.self, from: Data(result.messageJSON.utf8))
        #expect(decoded == result.message)
        #expect(decoded.text == text)
        let message = try #require(
            try JSONSerialization.jsonObject(with: Data(result.messageJSON.utf8)) as? [String: Any])
        let event = try #require(result.event)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(event.json.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["seq", "type", "cid", "created_at", "message"])
        #expect(object["seq"] as? Int == Int(event.seq))
        #expect(object["type"] as? String == "message.new")
        #expect(object["cid"] as? String == cid.cid)
        #expect(object["created_at"] as? String == message["created_at"] as? String)
        #expect((object["message"] as? NSDictionary) == (message as NSDictionary))
        // The stored event is the one sent live.
        await #expect(try temporary.store.events(for: "bob", after: event.seq - 1).first?.json == event.json)
    }
}

@Suite struct EventDeliveryTests {
    /// A thread-safe list of seqs.
    final class Seqs: @unchecked Sendable {
        // @unchecked Sendable: `values` is only touched inside `lock`.
        private let lock = NSLock()
        private var values: [Int64] = []

        func append(_ seq: Int64) {
            lock.lock()
            values.append(seq)
            lock.unlock()
        }

        var all: [Int64] {
            lock.lock()
            defer { lock.unlock() }
            return values
        }
    }

    /// Forty threads send at once (every fifth send fails and is rolled back alone): the sink
    /// gets every committed event once, in seq order, and none of the rolled-back ones. On
    /// SQLite each arrives before its send returns; on PostgreSQL, which other servers may
    /// share, every event comes from the feed that reads the log after the commit
    /// (``EventFeed``), so it arrives soon after instead — the stated difference.
    @Test func committedEventsReachTheSinkInOrder() async throws {
        let temporary = try await TemporaryStore()
        let cid = try await temporary.seeded()
        let store = temporary.store
        let seen = Seqs()
        store.deliverEvents { seen.append($0.seq) }
        let lateDeliveries = Counter()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let result = try? await store.sendMessage(
                        NewMessage(
                            id: MessageID(rawValue: "d\(index)"), cid: cid, author: "bob", text: "#\(index)",
                            parentID: index % 5 == 4 ? "missing-parent" : nil))
                    if let seq = result?.event?.seq, !seen.all.contains(seq) { lateDeliveries.increment() }
                }
            }
        }
        let logged = try await temporary.store.events(for: "alice", after: 0, limit: 100).map(\.seq)
        #expect(logged.count == 32)
        if TestDatabases.onPostgres {
            let deadline = ContinuousClock.now + .seconds(10)
            while seen.all.count < logged.count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
        } else {
            #expect(lateDeliveries.value == 0)
        }
        #expect(seen.all == logged)
        temporary.store.deliverEvents(to: nil)
        _ = try await temporary.store.sendMessage(NewMessage(cid: cid, author: "bob", text: "after"))
        #expect(seen.all.count == 32)
    }
}

@Suite struct SearchIndexingTests {
    /// Forty threads send at once, so commits hold many writes; every fifth send names a parent
    /// that does not exist and is rolled back alone. Each stored message is found once, the
    /// rolled-back ones never, also after the store is reopened.
    @Test func messagesCommittedTogetherAreEachIndexedOnce() async throws {
        let temporary = try await TemporaryStore()
        let cid = try await temporary.seeded()
        let store = temporary.store
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    _ = try? await store.sendMessage(
                        NewMessage(
                            id: MessageID(rawValue: "s\(index)"), cid: cid, author: "alice",
                            text: "word\(index)x together", parentID: index % 5 == 4 ? "missing-parent" : nil))
                }
            }
        }
        func expectIndexed(_ store: ChatStore) async throws {
            for index in 0..<40 {
                let hits = try await store.searchMessages("word\(index)x", for: "bob").map(\.message.id.rawValue)
                #expect(hits == (index % 5 == 4 ? [] : ["s\(index)"]), "word\(index)x")
            }
            await #expect(try store.searchMessages("together", for: "bob", limit: 100).count == 32)
        }
        try await expectIndexed(temporary.store)
        let reopened = try await temporary.reopen()
        try await expectIndexed(reopened)
        _ = try await reopened.sendMessage(NewMessage(cid: cid, author: "bob", text: "lantern"))
        await #expect(try reopened.searchMessages("lantern", for: "alice").count == 1)
    }

    /// Messages indexed by the old insert trigger stay found once; new ones are indexed by the writer.
    @Test func messagesIndexedByTheOldTriggerStayFoundOnce() async throws {
        let folder = try TestFolders.make("store")
        let path = folder + "/chat.sqlite"
        do {
            let old = try Connection(path: path)
            try Schema.migrator.through("v6: one event log, read by channel").migrate(old)
            try old.execute(
                """
                INSERT INTO users(id, name, created_at, updated_at) VALUES ('alice', 'Alice', 0, 0);
                INSERT INTO channels(cid, type, name, created_by, created_at) VALUES ('messaging:hike', 'messaging', 'Hike', 'alice', 0);
                INSERT INTO members(cid, user_id, joined_at) VALUES ('messaging:hike', 'alice', 0);
                INSERT INTO messages(id, cid, user_id, text, created_at) VALUES
                    ('m1', 'messaging:hike', 'alice', 'bring the lantern', 0), ('m2', 'messaging:hike', 'alice', 'and a map', 0);
                """)
        }
        let store = try await ChatStore.open(path: path)
        await #expect(try store.searchMessages("lantern", for: "alice").map(\.message.id.rawValue) == ["m1"])
        _ = try await store.sendMessage(
            NewMessage(id: "m3", cid: ChannelID(type: "messaging", id: "hike"), author: "alice", text: "lantern oil"))
        await #expect(
            Set(try store.searchMessages("lantern", for: "alice").map(\.message.id.rawValue)) == ["m1", "m3"])
        await #expect(try store.searchMessages("map", for: "alice").map(\.message.id.rawValue) == ["m2"])
    }
}

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    // @unchecked Sendable: `count` is only touched inside `lock`.
    private let lock = NSLock()
    private var count = 0

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
