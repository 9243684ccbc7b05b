import ChatStore
import Foundation

@testable import ChatStore

/// A fresh database: an SQLite file in its own temporary folder, or, when the environment's
/// `SOTTO_TEST_POSTGRES` names a PostgreSQL server (`postgresql://user@/postgres?host=/socket/folder`,
/// as `scripts/postgres start` prints it), a new database of its own on that server. The store
/// tests run once on each (`scripts/test`).
///
/// The folder outlives the value (a test may keep using `store` after its last use of the
/// `TemporaryStore`) and goes when the test process exits; the databases go with the server.
final class TemporaryStore {
    let folder: String
    let location: ChatStore.Location
    let store: ChatStore

    init(options: ChatStore.Options = ChatStore.Options()) async throws {
        folder = try TestFolders.make("store")
        location = try TestDatabases.location(in: folder)
        store = try await ChatStore.open(location, options: TestDatabases.fitted(options))
    }

    /// The same database opened again (as a restarted server opens it).
    func reopen(options: ChatStore.Options = ChatStore.Options()) async throws -> ChatStore {
        try await ChatStore.open(location, options: TestDatabases.fitted(options))
    }

    /// alice, bob and carol; `messaging:hike` with alice and bob.
    func seeded() async throws -> ChannelID {
        _ = try await store.upsertUsers(
            [.init(id: "alice", name: "Alice"), .init(id: "bob", name: "Bob"), .init(id: "carol", name: "Carol")],
            by: nil)
        let cid = ChannelID(type: "messaging", id: "hike")
        _ = try await store.getOrCreateChannel(cid, name: "Hike", members: ["bob"], by: "alice")
        return cid
    }
}

/// Where the store tests keep their databases.
enum TestDatabases {
    /// The PostgreSQL server the tests use, if any.
    static let postgres = ProcessInfo.processInfo.environment["SOTTO_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }

    /// Whether the store tests run on PostgreSQL in this process.
    static var onPostgres: Bool { postgres != nil }

    /// `options` with two readers on PostgreSQL: a hundred tests at once each hold a store, and
    /// every reader is a connection to the one server.
    static func fitted(_ options: ChatStore.Options) -> ChatStore.Options {
        var options = options
        if onPostgres { options.readerCount = min(options.readerCount, 2) }
        return options
    }

    /// An SQLite file in `folder`, or a new empty database on the PostgreSQL server.
    static func location(in folder: String) throws -> ChatStore.Location {
        guard let postgres else { return .sqlite(path: folder + "/chat.sqlite") }
        let name = "sotto_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let server = try Connection(postgresURL: postgres)
        try server.execute("CREATE DATABASE \(name)")
        guard let database = postgres.range(of: "@/postgres") else {
            preconditionFailure(
                "SOTTO_TEST_POSTGRES must name the server's postgres database, as scripts/postgres prints it")
        }
        return .postgresql(url: postgres.replacingCharacters(in: database, with: "@/" + name))
    }
}
