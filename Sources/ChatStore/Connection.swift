import CSQLite
import Foundation

/// One SQLite connection with a cache of prepared statements.
///
/// A connection is not thread-safe: each is owned by one thread (the store's writer, or one of
/// its reader threads), which hands it to one closure at a time.
package final class Connection {
    package let handle: OpaquePointer
    private var statements: [String: Statement] = [:]

    /// Opens (creating if needed) the database file at `path`.
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
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit {
        statements.removeAll()  // finalize before closing
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows (schema changes, pragmas).
    package func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw DatabaseError(resultCode: sqlite3_extended_errcode(handle), message: message, sql: sql)
        }
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
    /// interrupts the statement, so a step that reads long without a row is cut too.)
    package func rows<T>(
        _ sql: String, _ arguments: [SQLValue] = [], within budget: Duration, _ map: (Statement) throws -> T
    ) throws -> [T] {
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

    /// The rowid of the last row inserted on this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    package func error(_ code: Int32, sql: String?) -> DatabaseError {
        DatabaseError(
            resultCode: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
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
