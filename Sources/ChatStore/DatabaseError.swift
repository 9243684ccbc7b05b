import CSQLite

/// A failure reported by SQLite, with the statement that caused it.
///
/// `resultCode` is SQLite's extended result code (for example `SQLITE_CONSTRAINT_UNIQUE`,
/// 2067); `sql` is the statement being prepared or run, when there was one.
public struct DatabaseError: Error, CustomStringConvertible, Sendable {
    /// SQLite's extended result code.
    public let resultCode: Int32
    /// SQLite's error message for the connection at the time of the failure.
    public let message: String
    /// The SQL statement that failed, if any.
    public let sql: String?

    public init(resultCode: Int32, message: String, sql: String? = nil) {
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
    }

    /// The primary result code (the low byte of `resultCode`), e.g. `SQLITE_CONSTRAINT`.
    public var primaryResultCode: Int32 { resultCode & 0xFF }

    /// True when the failure is a violated constraint (unique, foreign key, not null, check).
    public var isConstraintViolation: Bool { primaryResultCode == SQLITE_CONSTRAINT }

    public var description: String {
        var text = "SQLite error \(resultCode): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }
}
