import CPostgreSQL
import CSQLite
import Foundation

/// A value bound to a statement parameter.
package enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLValue {
    package static func int(_ value: Int) -> SQLValue { .integer(Int64(value)) }
    package static func optionalText(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }

    /// PostgreSQL's type for the value (its OID in `pg_type`): int8, float8, text, bytea, or
    /// 0 for null (the server infers it).
    var postgresType: Oid {
        switch self {
        case .null: 0
        case .integer: 20
        case .real: 701
        case .text: 25
        case .blob: 17
        }
    }
}

/// A prepared statement and the row it is on. Owned by its `Connection`'s cache; not
/// thread-safe.
///
/// On SQLite it steps through rows as SQLite makes them. On PostgreSQL a step sends the
/// statement (prepared on the server once for each combination of parameter types) and reads
/// the whole result, then moves through its rows; values come back as text and are parsed.
package final class Statement {
    private let handle: OpaquePointer?
    private unowned let connection: Connection
    package let sql: String
    // PostgreSQL
    /// `sql` with `$N` placeholders.
    private let postgresText: String
    /// Server-side names, by the parameters' types.
    private var prepared: [[Oid]: String] = [:]
    private var arguments: [SQLValue] = []
    private var result: OpaquePointer?
    private var row: Int32 = -1

    init(connection: Connection, sql: String) throws {
        self.connection = connection
        self.sql = sql
        if let database = connection.sqlite {
            var handle: OpaquePointer?
            let code = sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
            guard code == SQLITE_OK, let handle else { throw connection.error(code, sql: sql) }
            self.handle = handle
            postgresText = ""
        } else {
            handle = nil
            postgresText = PostgresText.translate(sql)
        }
    }

    deinit {
        if let handle { sqlite3_finalize(handle) }
        if let result { PQclear(result) }
    }

    func reset() {
        if let handle {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        } else {
            clearResult()
            arguments = []
        }
    }

    private func clearResult() {
        if let result { PQclear(result) }
        result = nil
        row = -1
    }

    package func bind(_ values: [SQLValue]) throws {
        guard let handle else {
            arguments = values
            return
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = sqlite3_bind_double(handle, index, number)
            case .text(let text):
                // An explicit byte count keeps text with embedded NULs whole.
                var copy = text
                code = copy.withUTF8 { bytes in
                    guard let base = bytes.baseAddress else { return csqlite_bind_text(handle, index, "", 0) }
                    return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        csqlite_bind_text(handle, index, $0, Int32(bytes.count))
                    }
                }
            case .blob(let bytes):
                code = bytes.withUnsafeBytes { csqlite_bind_blob(handle, index, $0.baseAddress, Int32($0.count)) }
            }
            guard code == SQLITE_OK else { throw connection.error(code, sql: sql) }
        }
    }

    /// Advances to the next row; false when the statement is done.
    package func step() throws -> Bool {
        guard let handle else { return try stepPostgres() }
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE:
            sqlite3_reset(handle)
            return false
        default:
            let error = connection.error(code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    private func stepPostgres() throws -> Bool {
        if result == nil {
            try executePostgres()
            row = 0
        } else {
            row += 1
        }
        guard let result, row < PQntuples(result) else {
            clearResult()
            return false
        }
        return true
    }

    /// Sends the statement with its arguments and keeps the result.
    private func executePostgres() throws {
        guard let database = connection.postgres else { preconditionFailure("no connection") }
        let types = arguments.map(\.postgresType)
        let name: String
        if let known = prepared[types] {
            name = known
        } else {
            name = connection.nextPreparedName()
            let made = PQprepare(database, name, postgresText, Int32(types.count), types)
            defer { PQclear(made) }
            guard PQresultStatus(made) == PGRES_COMMAND_OK else {
                throw DatabaseError(postgres: made, connection: database, sql: sql)
            }
            prepared[types] = name
        }
        // PostgreSQL's text cannot hold U+0000 (libpq would also cut the value there): refused
        // whole, where SQLite stores it.
        if arguments.contains(where: { if case .text(let text) = $0 { text.utf8.contains(0) } else { false } }) {
            throw ChatStoreError.invalidArgument(
                field: "text", reason: "holds a NUL character, which PostgreSQL cannot store")
        }
        // Every value as text but blobs, which go as their bytes (binary format).
        var buffers: [[UInt8]?] = arguments.map { value in
            switch value {
            case .null: nil
            case .integer(let number): Array(String(number).utf8) + [0]
            case .real(let number): Array(Self.postgresReal(number).utf8) + [0]
            case .text(let text): Array(text.utf8) + [0]
            case .blob(let bytes): bytes + [0]  // never empty: an empty buffer would be NULL
            }
        }
        let lengths = arguments.map { value -> Int32 in
            if case .blob(let bytes) = value { Int32(bytes.count) } else { 0 }
        }
        let formats = arguments.map { value -> Int32 in if case .blob = value { 1 } else { 0 } }
        let executed = buffers.withUnsafeMutableBufferPointers { pointers in
            PQexecPrepared(database, name, Int32(pointers.count), pointers, lengths, formats, 0)
        }
        let status = PQresultStatus(executed)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            let error = DatabaseError(postgres: executed, connection: database, sql: sql)
            PQclear(executed)
            throw error
        }
        connection.postgresChanges = Int(String(cString: PQcmdTuples(executed))) ?? 0
        result = executed
    }

    /// A double as PostgreSQL's float8 input reads it.
    private static func postgresReal(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        return "\(number)"
    }

    /// The text PostgreSQL sent for a column of the current row (nil for NULL).
    private func postgresValue(_ column: Int32) -> UnsafeMutablePointer<CChar>? {
        guard let result, PQgetisnull(result, row, column) == 0 else { return nil }
        return PQgetvalue(result, row, column)
    }

    package func isNull(_ column: Int32) -> Bool {
        guard let handle else { return postgresValue(column) == nil }
        return sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    package func int64(_ column: Int32) -> Int64 {
        guard let handle else {
            guard let value = postgresValue(column) else { return 0 }
            let text = String(cString: value)
            if let number = Int64(text) { return number }
            switch text {
            case "t": return 1
            case "f": return 0
            default: return Double(text).map { Int64($0) } ?? 0  // numeric sums, as SQLite would cast
            }
        }
        return sqlite3_column_int64(handle, column)
    }

    package func int(_ column: Int32) -> Int { Int(int64(column)) }

    package func string(_ column: Int32) -> String {
        guard let handle else {
            guard let result, let value = postgresValue(column) else { return "" }
            let count = Int(PQgetlength(result, row, column))
            return value.withMemoryRebound(to: UInt8.self, capacity: count) {
                String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
            }
        }
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    package func double(_ column: Int32) -> Double {
        guard let handle else { return postgresValue(column).flatMap { Double(String(cString: $0)) } ?? 0 }
        return sqlite3_column_double(handle, column)
    }

    package func blob(_ column: Int32) -> [UInt8] {
        guard let handle else {
            guard let result, let value = postgresValue(column) else { return [] }
            return PostgresText.bytea(value, count: Int(PQgetlength(result, row, column)))
        }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// The column's value as SQLite holds it (its own type, row by row); on PostgreSQL, text
    /// or null.
    package func value(_ column: Int32) -> SQLValue {
        guard let handle else { return isNull(column) ? .null : .text(string(column)) }
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(int64(column))
        case SQLITE_FLOAT: return .real(double(column))
        case SQLITE_BLOB: return .blob(blob(column))
        default: return .text(string(column))
        }
    }

    package func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }

    package func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
}

extension Array where Element == [UInt8]? {
    /// Calls `body` with a C array of pointers to the elements' bytes (NULL for nil).
    fileprivate mutating func withUnsafeMutableBufferPointers<R>(
        _ body: ([UnsafePointer<CChar>?]) -> R
    ) -> R {
        var pointers: [UnsafePointer<CChar>?] = []
        func visit(_ index: Int) -> R {
            if index == count { return body(pointers) }
            guard self[index] != nil else {
                pointers.append(nil)
                return visit(index + 1)
            }
            return self[index]!.withUnsafeBufferPointer { bytes in
                pointers.append(bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) })
                return visit(index + 1)
            }
        }
        return visit(0)
    }
}
