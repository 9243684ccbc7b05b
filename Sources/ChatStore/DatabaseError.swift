import CPostgreSQL
import CSQLite

/// A failure reported by the database, with the statement that caused it.
///
/// `resultCode` is SQLite's extended result code (for example `SQLITE_CONSTRAINT_UNIQUE`,
/// 2067), `name` its name; `sql` is the statement being prepared or run, when there was one.
/// A PostgreSQL failure keeps its SQLSTATE in `sqlState` and carries the SQLite code of the same
/// meaning (a unique violation, 23505, is `SQLITE_CONSTRAINT_UNIQUE`), so callers ask one set of
/// questions of either.
public struct DatabaseError: Error, CustomStringConvertible, Sendable {
    /// SQLite's extended result code.
    public let resultCode: Int32
    /// SQLite's error message for the connection at the time of the failure.
    public let message: String
    /// The SQL statement that failed, if any.
    public let sql: String?
    /// PostgreSQL's SQLSTATE (e.g. `23505`); nil for SQLite.
    public let sqlState: String?

    public init(resultCode: Int32, message: String, sql: String? = nil, sqlState: String? = nil) {
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
        self.sqlState = sqlState
    }

    /// The failure a PostgreSQL result (or, without one, the connection) reports.
    init(postgres result: OpaquePointer?, connection: OpaquePointer, sql: String?) {
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        let text = result.map { String(cString: PQresultErrorMessage($0)) } ?? ""
        let message = (text.isEmpty ? String(cString: PQerrorMessage(connection)) : text)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        self.init(resultCode: Self.sqliteCode(for: state), message: message, sql: sql, sqlState: state ?? "08006")
    }

    /// The SQLite result code that means what SQLSTATE `state` means.
    static func sqliteCode(for state: String?) -> Int32 {
        switch state {
        case "23505": 2067  // unique
        case "23503": 787  // foreign key
        case "23502": 1299  // not null
        case "23514": 275  // check
        case let state? where state.hasPrefix("23"): SQLITE_CONSTRAINT
        case "40001", "40P01", "55P03": SQLITE_BUSY  // serialization, deadlock, lock not available
        case "57014": SQLITE_INTERRUPT  // cancelled (a statement timeout)
        case "53100": SQLITE_FULL  // disk full
        case let state? where state.hasPrefix("08"): SQLITE_CANTOPEN  // the connection
        default: SQLITE_ERROR
        }
    }

    /// The primary result code (the low byte of `resultCode`), e.g. `SQLITE_CONSTRAINT`.
    public var primaryResultCode: Int32 { resultCode & 0xFF }

    /// True when the failure is a violated constraint (unique, foreign key, not null, check).
    public var isConstraintViolation: Bool { primaryResultCode == SQLITE_CONSTRAINT }

    /// True when another connection or process holds a lock (`SQLITE_BUSY`, `SQLITE_LOCKED`):
    /// worth retrying.
    public var isBusy: Bool { primaryResultCode == SQLITE_BUSY || primaryResultCode == SQLITE_LOCKED }

    /// The result code's name, e.g. `SQLITE_CONSTRAINT_UNIQUE`; the primary code's name for an
    /// extended code not in the table, `SQLITE_UNKNOWN(n)` for neither.
    public var name: String {
        Self.names[resultCode] ?? Self.names[primaryResultCode].map { "\($0) (extended \(resultCode))" }
            ?? "SQLITE_UNKNOWN(\(resultCode))"
    }

    public var description: String {
        var text = sqlState.map { "PostgreSQL error \($0): \(message)" } ?? "SQLite error \(name): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }

    /// Names from sqlite3.h: the primary codes and the extended codes a chat store can meet.
    static let names: [Int32: String] = [
        0: "SQLITE_OK", 1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT",
        5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY", 9: "SQLITE_INTERRUPT",
        10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 12: "SQLITE_NOTFOUND", 13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN",
        15: "SQLITE_PROTOCOL", 16: "SQLITE_EMPTY", 17: "SQLITE_SCHEMA", 18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT",
        20: "SQLITE_MISMATCH", 21: "SQLITE_MISUSE", 22: "SQLITE_NOLFS", 23: "SQLITE_AUTH", 24: "SQLITE_FORMAT",
        25: "SQLITE_RANGE", 26: "SQLITE_NOTADB", 27: "SQLITE_NOTICE", 28: "SQLITE_WARNING", 100: "SQLITE_ROW",
        101: "SQLITE_DONE",
        // Extended codes: primary | (n << 8).
        261: "SQLITE_BUSY_RECOVERY", 517: "SQLITE_BUSY_SNAPSHOT", 773: "SQLITE_BUSY_TIMEOUT",
        262: "SQLITE_LOCKED_SHAREDCACHE", 264: "SQLITE_READONLY_RECOVERY", 520: "SQLITE_READONLY_CANTLOCK",
        776: "SQLITE_READONLY_ROLLBACK", 1032: "SQLITE_READONLY_DBMOVED", 266: "SQLITE_IOERR_READ",
        522: "SQLITE_IOERR_SHORT_READ", 778: "SQLITE_IOERR_WRITE", 1034: "SQLITE_IOERR_FSYNC",
        1290: "SQLITE_IOERR_DIR_FSYNC", 1546: "SQLITE_IOERR_TRUNCATE", 3082: "SQLITE_IOERR_NOMEM",
        3338: "SQLITE_IOERR_ACCESS", 4874: "SQLITE_IOERR_SHMOPEN", 5130: "SQLITE_IOERR_SHMSIZE",
        5386: "SQLITE_IOERR_SHMLOCK", 5642: "SQLITE_IOERR_SHMMAP", 267: "SQLITE_CORRUPT_VTAB",
        270: "SQLITE_CANTOPEN_NOTEMPDIR", 526: "SQLITE_CANTOPEN_ISDIR", 782: "SQLITE_CANTOPEN_FULLPATH",
        275: "SQLITE_CONSTRAINT_CHECK", 531: "SQLITE_CONSTRAINT_COMMITHOOK", 787: "SQLITE_CONSTRAINT_FOREIGNKEY",
        1043: "SQLITE_CONSTRAINT_FUNCTION", 1299: "SQLITE_CONSTRAINT_NOTNULL", 1555: "SQLITE_CONSTRAINT_PRIMARYKEY",
        1811: "SQLITE_CONSTRAINT_TRIGGER", 2067: "SQLITE_CONSTRAINT_UNIQUE", 2323: "SQLITE_CONSTRAINT_VTAB",
        2579: "SQLITE_CONSTRAINT_ROWID",
    ]
}
