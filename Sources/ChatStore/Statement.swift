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
}

/// A prepared statement. Owned by its `Connection`'s cache; not thread-safe.
package final class Statement {
    private let handle: OpaquePointer
    private unowned let connection: Connection
    package let sql: String

    init(connection: Connection, sql: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(
            connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else { throw connection.error(code, sql: sql) }
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    package func bind(_ values: [SQLValue]) throws {
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

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    package func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

    package func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    package func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    package func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    package func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }

    package func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
}
