import Executors
import Foundation

/// What ``ChatStore/copy(from:to:)`` copied: rows per table, in the order copied.
public struct StoreCopyReport: Sendable {
    public var rows: [(table: String, count: Int)]
}

extension ChatStore {
    /// The tables of a store, parents before the rows that point at them, as a copy writes them.
    /// (Every table of an SQLite store at this build's schema but the search index's and the
    /// migrations' own; a test checks the list against the schema, so a table added later
    /// without a place here fails it.)
    static let copiedTables = [
        "users", "channels", "members", "messages", "message_edits", "message_reactions", "thread_reads",
        "attachments", "preferences", "account_links", "access_state", "event_log", "event_log_state",
        "message_search_state", "assistant_conversations", "assistant_messages", "assistant_images",
        "assistant_uploads", "assistant_usage",
    ]

    /// The tables of an SQLite store a copy carries: all but SQLite's own, the migrations' and
    /// the search indexes' (PostgreSQL indexes the copied messages itself).
    static func tables(of db: Connection) throws -> [String] {
        try db.rows(
            """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                AND (name NOT LIKE 'message_search%' OR name = 'message_search_state')
                AND name NOT LIKE 'assistant_message_search%' AND name != 'schema_migrations'
            """
        ) { $0.string(0) }
    }

    /// Tables whose rows PostgreSQL numbers in a `rowid` column of its own (SQLite's implicit
    /// rowid, which the store orders some reads by): the copy carries SQLite's numbers over.
    static let tablesWithRowID: Set<String> = [
        "users", "assistant_conversations", "assistant_images", "assistant_uploads",
    ]

    /// Copies everything an SQLite store holds into an empty PostgreSQL database, in one
    /// transaction: users, channels, messages with their positions, the event log with its seqs
    /// (so clients resume where they were), read positions, assistant conversations and images,
    /// files. Both are migrated to this build's schema first. The PostgreSQL database must hold
    /// no users yet: a copy adds to nothing, so nothing is lost or mixed.
    ///
    /// Runs on a thread of its own for its whole length (it reads and writes the whole store).
    public static func copy(fromSQLite path: String, to url: String) async throws -> StoreCopyReport {
        try await ThreadExecutor(name: "sotto.store.copy").run { try copySynchronously(fromSQLite: path, to: url) }
    }

    private static func copySynchronously(fromSQLite path: String, to url: String) throws -> StoreCopyReport {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ChatStoreError.notFound(what: "SQLite store", id: path)
        }
        // Opening migrates each to this build's schema (and closes it again).
        _ = try ChatStore(location: .sqlite(path: path))
        _ = try ChatStore(location: .postgresql(url: url))
        let source = try Connection(path: path, readOnly: true)
        let target = try Connection(postgresURL: url)
        let differing = try Set(tables(of: source)).symmetricDifference(copiedTables)
        guard differing.isEmpty else {
            throw ChatStoreError.invalidArgument(
                field: "source",
                reason: "tables not as this build expects: \(differing.sorted().joined(separator: ", "))")
        }
        return try target.transaction {
            guard try target.row("SELECT COUNT(*) FROM users", [], { $0.int(0) }) == 0 else {
                throw ChatStoreError.conflict(
                    reason: "the PostgreSQL database already holds users: copy into an empty one")
            }
            // The rows the migrations made (the singletons' first state) give way to the source's.
            for table in copiedTables.reversed() { try target.execute("DELETE FROM \(table)") }
            var report = StoreCopyReport(rows: [])
            for table in copiedTables {
                var columns = try source.rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)]) {
                    $0.string(0)
                }
                if tablesWithRowID.contains(table) { columns.insert("rowid", at: 0) }
                let list = columns.joined(separator: ", ")
                let insert = """
                    INSERT INTO \(table)(\(list)) OVERRIDING SYSTEM VALUE
                    VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
                    """
                var count = 0
                let statement = try source.prepare("SELECT \(list) FROM \(table)")
                while try statement.step() {
                    try target.run(insert, (0..<Int32(columns.count)).map { statement.value($0) })
                    count += 1
                }
                report.rows.append((table, count))
            }
            // Identity columns continue after the copied numbers.
            let identities = try target.rows(
                """
                SELECT table_name, column_name FROM information_schema.columns
                WHERE table_schema = current_schema() AND is_identity = 'YES'
                """
            ) { ($0.string(0), $0.string(1)) }
            for (table, column) in identities where copiedTables.contains(table) {
                try target.execute(
                    """
                    SELECT setval(pg_get_serial_sequence('\(table)', '\(column)'),
                        COALESCE((SELECT MAX(\(column)) FROM \(table)), 0) + 1, false)
                    """)
            }
            return report
        }
    }
}
