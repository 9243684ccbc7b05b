import CPostgreSQL
import CSQLite
import Foundation

/// The SQL a connection speaks. The store's statements are written once, in the SQL both
/// understand, and branch on the dialect where they cannot be (search, JSON, schema).
package enum SQLDialect: Sendable {
    case sqlite
    case postgresql
}

/// One database connection — an SQLite file or a PostgreSQL server — with a cache of prepared
/// statements.
///
/// A connection is not thread-safe: each is owned by one thread (the store's writer, or one of
/// its reader threads), which hands it to one closure at a time.
///
/// Statements use `?` (or `?N`) placeholders; on PostgreSQL they are rewritten to `$N`
/// (``PostgresText``) and every parameter is sent with its type.
package final class Connection {
    package let dialect: SQLDialect
    /// SQLite's handle (nil on PostgreSQL).
    let sqlite: OpaquePointer?
    /// libpq's connection (nil on SQLite).
    let postgres: OpaquePointer?
    private var statements: [String: Statement] = [:]
    /// Rows changed by the last statement run on PostgreSQL (SQLite counts its own).
    var postgresChanges = 0
    /// Names of the server-side prepared statements made so far (PostgreSQL).
    private var preparedCount = 0

    /// SQLite's handle, for tests that reach below the store.
    package var handle: OpaquePointer {
        guard let sqlite else { preconditionFailure("not an SQLite connection") }
        return sqlite
    }

    /// Opens (creating if needed) the SQLite database file at `path`.
    package init(path: String, readOnly: Bool = false) throws {
        var handle: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw DatabaseError(resultCode: code, message: "\(message) (opening \(path))")
        }
        dialect = .sqlite
        sqlite = handle
        postgres = nil
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, 5_000)
    }

    /// Connects to the PostgreSQL server and database that `url` names (a libpq connection
    /// URI, `postgresql://user@host:port/database?host=/run/socket-folder`). Errors name the URL
    /// without its password.
    package init(postgresURL url: String) throws {
        guard let connection = PQconnectdb(url) else {
            throw DatabaseError(resultCode: SQLITE_NOMEM, message: "out of memory (connecting to PostgreSQL)")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(connection)
            throw DatabaseError(
                resultCode: SQLITE_CANTOPEN, message: "\(message) (connecting to \(CredentialRedaction.redacted(url)))",
                sqlState: "08001")
        }
        // Notices (`CREATE … IF NOT EXISTS` of what exists) are not errors: not printed.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        dialect = .postgresql
        sqlite = nil
        postgres = connection
        try execute("SET client_encoding = 'UTF8'; SET TIME ZONE 'UTC'")
    }

    deinit {
        statements.removeAll()  // finalize before closing
        if let sqlite { sqlite3_close_v2(sqlite) }
        if let postgres { PQfinish(postgres) }
    }

    /// Runs one or more statements that return no rows (schema changes, pragmas).
    package func execute(_ sql: String) throws {
        if let postgres {
            let result = PQexec(postgres, sql)
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
                throw DatabaseError(postgres: result, connection: postgres, sql: sql)
            }
            postgresChanges = Int(String(cString: PQcmdTuples(result))) ?? 0
            return
        }
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw DatabaseError(resultCode: sqlite3_extended_errcode(handle), message: message, sql: sql)
        }
    }

    /// Waits up to `milliseconds` for a notification on a channel this connection has run
    /// `LISTEN` for, and takes every one that came: true if any did (PostgreSQL; on SQLite,
    /// false at once). Blocks its thread: the caller owns one for it.
    ///
    /// - Throws: when the connection to the server is lost.
    package func waitForNotifications(milliseconds: Int32) throws -> Bool {
        guard let postgres else { return false }
        if takeNotifications(postgres) { return true }
        var descriptor = pollfd(fd: PQsocket(postgres), events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, milliseconds)
        if ready < 0, errno != EINTR {
            throw DatabaseError(resultCode: SQLITE_IOERR, message: "poll: \(String(cString: strerror(errno)))")
        }
        guard ready <= 0 || PQconsumeInput(postgres) == 1, PQstatus(postgres) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(postgres)).trimmingCharacters(in: .whitespacesAndNewlines)
            throw DatabaseError(resultCode: SQLITE_CANTOPEN, message: "lost the server: \(message)", sqlState: "08006")
        }
        return takeNotifications(postgres)
    }

    private func takeNotifications(_ postgres: OpaquePointer) -> Bool {
        var any = false
        while let notification = PQnotifies(postgres) {
            PQfreemem(notification)
            any = true
        }
        return any
    }

    /// Returns a cached prepared statement for `sql`, reset and with its bindings cleared.
    package func prepare(_ sql: String) throws -> Statement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        let statement = try Statement(connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// A new name for a server-side prepared statement (PostgreSQL).
    func nextPreparedName() -> String {
        preparedCount += 1
        return "sotto_\(preparedCount)"
    }

    /// Prepares `sql`, binds `arguments` and steps until done.
    package func run(_ sql: String, _ arguments: [SQLValue] = []) throws {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        while try statement.step() {}
    }

    /// Prepares `sql`, binds `arguments` and maps every row.
    package func rows<T>(_ sql: String, _ arguments: [SQLValue] = [], _ map: (Statement) throws -> T) throws -> [T] {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        var result: [T] = []
        while try statement.step() { result.append(try map(statement)) }
        return result
    }

    /// Prepares `sql`, binds `arguments` and maps rows until the statement is done or `budget`
    /// has passed, whichever comes first: the rows read by then. (SQLite's progress handler
    /// interrupts the statement, so a step that reads long without a row is cut too.) On
    /// PostgreSQL, which hands over a statement's rows all at once (a cancelled one would read
    /// nothing: an empty answer that looks like "no match" on a busy server), the statement runs
    /// to its end: the queries given a budget there go through an index that bounds them.
    package func rows<T>(
        _ sql: String, _ arguments: [SQLValue] = [], within budget: Duration, _ map: (Statement) throws -> T
    ) throws -> [T] {
        guard sqlite != nil else { return try rows(sql, arguments, map) }
        let statement = try prepare(sql)
        try statement.bind(arguments)
        let deadline = Unmanaged.passRetained(Deadline(ContinuousClock.now + budget))
        sqlite3_progress_handler(
            handle, 1000,
            { context in
                guard let context else { return 0 }
                return ContinuousClock.now >= Unmanaged<Deadline>.fromOpaque(context).takeUnretainedValue().instant
                    ? 1 : 0
            }, deadline.toOpaque())
        defer {
            sqlite3_progress_handler(handle, 0, nil, nil)
            deadline.release()
        }
        var result: [T] = []
        do {
            while try statement.step() { result.append(try map(statement)) }
        } catch let error as DatabaseError where error.primaryResultCode == SQLITE_INTERRUPT {
            // Out of time: what was read stands.
        }
        return result
    }

    /// When a statement run by `rows(_:_:within:_:)` must stop.
    private final class Deadline {
        let instant: ContinuousClock.Instant
        init(_ instant: ContinuousClock.Instant) { self.instant = instant }
    }

    /// Prepares `sql`, binds `arguments` and maps the first row, if any.
    package func row<T>(_ sql: String, _ arguments: [SQLValue] = [], _ map: (Statement) throws -> T) throws -> T? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        guard try statement.step() else { return nil }
        let value = try map(statement)
        statement.reset()
        return value
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int {
        if let sqlite { return Int(sqlite3_changes(sqlite)) }
        return postgresChanges
    }

    package func error(_ code: Int32, sql: String?) -> DatabaseError {
        DatabaseError(
            resultCode: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// Starts a transaction that writes: SQLite takes its write lock at once (`BEGIN
    /// IMMEDIATE`), so a transaction never fails half way for want of it.
    ///
    /// On PostgreSQL it first takes the store's write lock (an advisory lock held until the
    /// transaction ends): the writes of every server sharing the database commit one at a time,
    /// as SQLite's do, so the event log's seqs are handed out in commit order (a reader that sees
    /// a seq sees every smaller one), and two servers' transactions never wait on each other's
    /// rows (which deadlocked when the lock was taken at the first event, after row writes).
    package func begin() throws {
        try execute(
            dialect == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN; SELECT pg_advisory_xact_lock(\(Self.writeLockKey))")
    }

    /// The advisory lock of ``begin()`` ("sotto" + 2; the migrator's is "sotto").
    static let writeLockKey: Int64 = 0x736F_7474_6F02

    /// Runs `body`'s reads in one snapshot of the database: a read transaction (SQLite's
    /// deferred `BEGIN`, which holds one WAL snapshot; PostgreSQL's `REPEATABLE READ`), for reads
    /// of several statements that must agree, as the pieces of one user's event log must (seen
    /// separately, a later statement can see seq N+1 of one channel where an earlier one missed
    /// seq N of another, which commits first).
    package func snapshot<T>(_ body: () throws -> T) throws -> T {
        try execute(dialect == .sqlite ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        return try committing(body)
    }

    /// Runs `body` inside a write transaction (``begin()`` … COMMIT), rolling back if it throws.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try begin()
        return try committing(body)
    }

    /// Runs `body` in the transaction just begun: COMMIT after it, ROLLBACK if it throws.
    private func committing<T>(_ body: () throws -> T) throws -> T {
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}
