import ChatStore
import Foundation
import ModelStore

/// `sotto db migrate [--database URL]` and `sotto db copy --to URL [--from PATH]`: the chat
/// store's schema, and a move from the default SQLite file to PostgreSQL.
struct DatabaseCommand: Command {
    static let name = "db"
    static let summary = "Migrate the chat database, or copy an SQLite store into PostgreSQL."
    static let usage = """
        usage: sotto db migrate [--database URL]
               sotto db copy --to postgresql://… [--from PATH]

        'migrate' brings the chat database to this build's schema (every server does so when it
        starts; this does it ahead, for example before several servers start together) and lists
        the migrations applied. The database is --database, else $SOTTO_DATABASE, else
        $SOTTO_HOME/chat.sqlite; a postgresql:// URL names a PostgreSQL database.

        'copy' moves a team from the default store to PostgreSQL without losing history: every
        user, channel, message (with its position), read position, thread, reaction, file,
        assistant conversation and event (with its seq, so clients resume where they were) of the
        SQLite file --from (default $SOTTO_HOME/chat.sqlite) is written into the PostgreSQL
        database --to, in one transaction. The PostgreSQL database must exist and hold no users;
        stop the server first, so that nothing is written to the file during the copy.
        """
    static let valueOptions: Set<String> = ["database", "from", "to"]
    static let switchOptions: Set<String> = []

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let data = ModelStore()
        switch arguments.positionals {
        case ["migrate"]:
            guard arguments.string("from") == nil, arguments.string("to") == nil else {
                throw UsageError(description: "'sotto db migrate' takes --database only")
            }
            let store = try await data.openChatStore(database: arguments.string("database"))
            let applied = try await store.appliedMigrations()
            print("\(store.location): \(applied.count) migrations applied, the newest '\(applied.last ?? "none")'.")
            return 0
        case ["copy"]:
            guard arguments.string("database") == nil else {
                throw UsageError(description: "'sotto db copy' takes --from and --to")
            }
            guard let to = arguments.string("to"), case .postgresql(let url) = ChatStore.Location(to) else {
                throw UsageError(description: "--to must be a postgresql:// URL")
            }
            let from = arguments.string("from") ?? data.chatDatabase.path
            guard case .sqlite(let path) = ChatStore.Location(from) else {
                throw UsageError(description: "--from must be the path of an SQLite store")
            }
            let report = try await ChatStore.copy(fromSQLite: path, to: url)
            let total = report.rows.reduce(0) { $0 + $1.count }
            print("Copied \(total) rows from \(path) to \(ChatStore.Location(to)):")
            for (table, count) in report.rows where count > 0 { print("  \(table): \(count)") }
            return 0
        default:
            throw UsageError(description: "expected 'migrate' or 'copy'")
        }
    }
}
