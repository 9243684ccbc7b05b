import CSQLite
import Executors
import Foundation
import Glibc
import Synchronization

/// The chat database: users, channels, members, messages, read state and per-user event logs.
///
/// One SQLite file in WAL mode (the default), or a PostgreSQL database. Writes go through a single writer connection, one transaction
/// at a time; reads use a small pool of reader connections and never wait for a write.
/// Every write is committed with `synchronous=FULL` by default, so once a method returns the
/// change survives the process being killed (and, with `FULL`, a power loss). Writes that
/// arrive together share one commit.
///
/// ```swift
/// let store = try ChatStore(path: home + "/chat.sqlite")
/// try store.upsertUsers([.init(id: "alice", name: "Alice")], by: nil)
/// ```
public final class ChatStore: Sendable {
    /// How hard SQLite works to make a commit durable.
    public enum Durability: Sendable {
        /// fsync the WAL on every commit: survives a crash of the process or the machine.
        case full
        /// fsync only at checkpoints: survives a crash of the process, not of the machine.
        case normal
    }

    /// Options for opening a store.
    public struct Options: Sendable {
        public var durability: Durability = .full
        /// Reader connections in the pool.
        public var readerCount: Int = 4
        /// Durable events older than this are pruned; a client asking for them gets a resync.
        public var eventRetention: Duration = .seconds(7 * 24 * 3600)
        /// Typing and suggestion events older than this are neither replayed nor kept.
        public var ephemeralRetention: Duration = .seconds(30)

        public init() {}
    }

    /// Where a store's data lives.
    public enum Location: Sendable, Hashable, CustomStringConvertible {
        /// An SQLite file (the default: nothing to install).
        case sqlite(path: String)
        /// A PostgreSQL database, named by a libpq connection URI
        /// (`postgresql://user:password@host:port/database`, or
        /// `postgresql:///database?host=/socket/folder` for a Unix socket).
        case postgresql(url: String)

        /// A `postgresql://` or `postgres://` URL names a PostgreSQL database; anything else is
        /// the path of an SQLite file.
        public init(_ text: String) {
            self =
                text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
                ? .postgresql(url: text) : .sqlite(path: text)
        }

        /// Whether it is a PostgreSQL database (which other servers may share).
        public var isPostgreSQL: Bool {
            if case .postgresql = self { true } else { false }
        }

        /// The path, or the URL without its password: what logs and errors show.
        public var description: String {
            switch self {
            case .sqlite(let path): path
            case .postgresql(let url): CredentialRedaction.redacted(url)
            }
        }
    }

    /// Where the data lives.
    public let location: Location
    /// Path of the database file (for PostgreSQL, the URL without its password).
    public var path: String { location.description }
    public let options: Options
    private let writer: GroupCommit
    /// Threads of their own, each owning a reader connection: reads never run on Swift's
    /// cooperative pool.
    private let readers: WorkerThreads<Connection>
    /// What the writer keeps between writes (see `WriterMemory`).
    let writerMemory: WriterMemory
    /// The events other servers append (PostgreSQL only).
    private let feed: EventFeed?
    /// Users seen to exist (users are never deleted).
    let knownUsers = Mutex<Set<UserID>>([])

    /// Opens (creating and migrating if needed) the SQLite database at `path`.
    ///
    /// The file is created owner-only (0600), and SQLite gives its `-wal` and `-shm` files the
    /// database's mode; an existing database or journal readable by others is tightened to 0600.
    public convenience init(path: String, options: Options = Options()) throws {
        try self.init(location: .sqlite(path: path), options: options)
    }

    /// Opens (creating and migrating if needed) the database at `location`.
    ///
    /// On PostgreSQL the database must exist and the URL's user own it (or be allowed to create
    /// tables and the `unaccent` extension in it); the store holds `readerCount` + 1
    /// connections. `durability` `.normal` is `synchronous_commit = off` there.
    public init(location: Location, options: Options = Options()) throws {
        self.location = location
        self.options = options
        let writerConnection: Connection
        let readerConnections: [Connection]
        switch location {
        case .sqlite(let path):
            try Self.restrictFiles(at: path)
            writerConnection = try Connection(path: path)
            try writerConnection.execute("PRAGMA journal_mode=WAL")
            // Checkpoints run on the writer, in the path of every commit that crosses the threshold;
            // a larger WAL (up to ~32 MB) checkpoints a hot page once instead of many times.
            try writerConnection.execute("PRAGMA wal_autocheckpoint=8000")
            // A page cache that holds the hot pages of a busy server (users, members, the event log's indexes)
            // instead of SQLite's 2 MB default, which rereads them from the file on every commit.
            try writerConnection.execute("PRAGMA cache_size=-65536")
            try writerConnection.execute(
                options.durability == .full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")
            try writerConnection.execute("PRAGMA foreign_keys=ON")
            try Schema.migrator.migrate(writerConnection)
            readerConnections = try (0..<max(1, options.readerCount)).map { _ in
                let reader = try Connection(path: path)
                try reader.execute("PRAGMA query_only=ON")
                try reader.execute("PRAGMA cache_size=-16384")
                return reader
            }
        case .postgresql(let url):
            writerConnection = try Connection(postgresURL: url)
            if options.durability == .normal { try writerConnection.execute("SET synchronous_commit = off") }
            try PostgresSchema.migrator.migrate(writerConnection)
            readerConnections = try (0..<max(1, options.readerCount)).map { _ in
                let reader = try Connection(postgresURL: url)
                try reader.execute("SET default_transaction_read_only = on")
                return reader
            }
        }
        let writerMemory = WriterMemory(shared: location.isPostgreSQL)
        self.writerMemory = writerMemory
        if case .postgresql(let url) = location { feed = EventFeed(url: url, memory: writerMemory) } else { feed = nil }
        writer = GroupCommit(connection: writerConnection, hooks: writerMemory)
        readers = WorkerThreads(name: "sotto.store.reader", resources: readerConnections)
    }

    /// Opens the database at `path` as `init(path:options:)` does, on a thread of its own: opening
    /// reads and may migrate the file and syncs it to disk, which must not hold one of Swift's
    /// cooperative threads (a server's requests run on them). Async callers open a store this way.
    public static func open(path: String, options: Options = Options()) async throws -> ChatStore {
        try await open(.sqlite(path: path), options: options)
    }

    /// Opens the database at `location` as `init(location:options:)` does, on a thread of its
    /// own (connecting and migrating wait on the disk or the network).
    public static func open(_ location: Location, options: Options = Options()) async throws -> ChatStore {
        try await ThreadExecutor(name: "sotto.store.open").run { try ChatStore(location: location, options: options) }
    }

    /// Creates the database file owner-only if it is missing, and takes group and other
    /// access away from an existing one and its journals.
    static func restrictFiles(at path: String) throws {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        guard errno == EEXIST else {
            throw DatabaseError(
                resultCode: SQLITE_CANTOPEN, message: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        for file in [path, path + "-wal", path + "-shm", path + "-journal"] {
            var status = stat()
            guard stat(file, &status) == 0, status.st_mode & 0o077 != 0, status.st_uid == geteuid() else { continue }
            chmod(file, status.st_mode & 0o700)
        }
    }

    deinit {
        feed?.stop()
        writer.stop()
        readers.stop()
    }

    /// Runs `body` with a reader connection, on the reader's own thread. Sees every write that
    /// committed before the call.
    package func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await readers.run(body)
    }

    /// Runs `body` in a transaction on the writer connection, on the writer's thread, and
    /// returns once it is committed. Concurrent writes share one commit (see `GroupCommit`); a
    /// write that throws is rolled back alone.
    package func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await writer.write(body)
    }

    /// Hands every event appended to the log to `sink` as soon as its transaction commits, in
    /// seq order, on the writer thread and before the write that appended it returns (so the
    /// sink must not wait for the store's writer); nil stops. One sink at a time.
    ///
    /// On PostgreSQL, which other servers may share, every event comes from the feed's thread
    /// instead (``EventFeed``), this store's and the other servers', in seq order, a few
    /// milliseconds after its commit; the feed starts with the first sink.
    public func deliverEvents(to sink: (@Sendable (AppendedEvent) -> Void)?) {
        writerMemory.deliver(to: sink)
        if sink != nil { feed?.start() }
    }

    /// Identifiers of the applied schema migrations, oldest first.
    public func appliedMigrations() async throws -> [String] {
        try await read { try Migrator.appliedIdentifiers($0) }
    }
}
