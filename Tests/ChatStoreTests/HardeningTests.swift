import CSQLite
import ChatStore
import Foundation
import TestSupport
import Testing

/// Issue 14's store-side holes: impersonating names, text limits, file modes, error names.
@Suite struct HardeningTests {
    @Test func displayNamesAreUniqueIgnoringCase() async throws {
        let store = try await TemporaryStore().store
        _ = try await store.upsertUsers([.init(id: "alice", name: "Alice")], by: nil)
        await #expect(throws: ChatStoreError.conflict(reason: "the display name 'alice' is taken by another user")) {
            try await store.upsertUsers([.init(id: "mallory", name: "alice")], by: nil)
        }
        await #expect(throws: ChatStoreError.self) {
            try await store.upsertUsers([.init(id: "m1", name: "Same"), .init(id: "m2", name: "same")], by: nil)
        }
        await #expect(try store.user("m1") == nil)  // the whole request is refused
        // Keeping your own name (in another case) is not a clash with yourself.
        await #expect(try store.upsertUsers([.init(id: "alice", name: "ALICE")], by: "alice").first?.name == "ALICE")
    }

    @Test func aTokenUserWhoseIdIsSomeonesNameGetsAnotherName() async throws {
        let store = try await TemporaryStore().store
        _ = try await store.upsertUsers([.init(id: "bob", name: "carol")], by: nil)
        let carol = try await store.ensureUser("carol")
        #expect(carol.name == "carol (2)")
    }

    @Test(arguments: ["\u{202E}ecilA", "Al\u{2066}ice", "Bob\u{200F}", "x\u{061C}y"])
    func bidiControlsAreRefusedInNames(name: String) async throws {
        let store = try await TemporaryStore().store
        await #expect(throws: ChatStoreError.self) {
            try await store.upsertUsers([.init(id: "u", name: name)], by: nil)
        }
        await #expect(throws: ChatStoreError.self) {
            _ = try await store.upsertUsers([.init(id: "owner", name: "Owner")], by: nil)
            _ = try await store.getOrCreateChannel(
                ChannelID(type: "messaging", id: "c"), name: name, members: [], by: "owner")
        }
    }

    @Test func theTextLimitCountsScalarsAndBytes() async throws {
        let temporary = try await TemporaryStore()
        let cid = try await temporary.seeded()
        let store = temporary.store
        let marks = "a" + String(repeating: "\u{0301}", count: 15_000)  // one grapheme cluster
        #expect(marks.count == 1)
        await #expect(throws: ChatStoreError.self) {
            try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: marks))
        }
        let wide = String(repeating: "😀", count: 4001)  // 4001 scalars, 16 004 bytes
        await #expect(throws: ChatStoreError.self) {
            try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: wide))
        }
        let fits = String(repeating: "😀", count: 4000)
        await #expect(try store.sendMessage(NewMessage(cid: cid, author: "alice", text: fits)).created)
    }

    @Test func theDatabaseAndItsJournalsAreOwnerOnly() async throws {
        let folder = try TestFolders.make("modes") + "/home"
        let previous = umask(0o022)
        defer { umask(previous) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let store = try await ChatStore.open(path: folder + "/chat.sqlite")
        _ = try await store.upsertUsers([.init(id: "alice", name: "Alice")], by: nil)
        func mode(_ path: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        }
        for suffix in ["", "-wal", "-shm"] {
            #expect(try mode(folder + "/chat.sqlite" + suffix) == 0o600, "chat.sqlite\(suffix)")
        }
        withExtendedLifetime(store) {}
    }

    @Test(.onTestThreads) func anExistingLooseDatabaseIsTightened() throws {
        let folder = try TestFolders.make("loose")
        let path = folder + "/chat.sqlite"
        _ = try ChatStore(path: path)
        chmod(path, 0o644)
        _ = try ChatStore(path: path)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test(.onTestThreads) func resultCodesHaveTheirNames() {
        #expect(DatabaseError(resultCode: 2067, message: "x").name == "SQLITE_CONSTRAINT_UNIQUE")
        #expect(DatabaseError(resultCode: SQLITE_BUSY, message: "x").name == "SQLITE_BUSY")
        #expect(DatabaseError(resultCode: SQLITE_BUSY, message: "x").isBusy)
        #expect(DatabaseError(resultCode: 19 | (99 << 8), message: "x").name == "SQLITE_CONSTRAINT (extended 25363)")
        let error = DatabaseError(resultCode: 1299, message: "NOT NULL failed", sql: "INSERT …")
        #expect(
            error.description == "SQLite error SQLITE_CONSTRAINT_NOTNULL: NOT NULL failed — while running: INSERT …")
    }

    @Test func aRealConstraintFailureIsNamed() async throws {
        let store = try await TemporaryStore().store
        _ = try await store.upsertUsers([.init(id: "alice", name: "Alice")], by: nil)
        do {
            _ = try await store.write { db in
                try db.run("INSERT INTO users(id, name, created_at, updated_at) VALUES ('x', 'ALICE', 0, 0)")
            }
            Issue.record("the unique name index let a duplicate in")
        } catch let error as DatabaseError {
            #expect(error.name == "SQLITE_CONSTRAINT_UNIQUE")
        }
    }
}
