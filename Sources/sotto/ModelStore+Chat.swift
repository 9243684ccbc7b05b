import ChatStore
import Foundation
import ModelStore
import Server

extension ModelStore {
    /// Where the chat's data lives: `database` (a `--database` option), else `$SOTTO_DATABASE`,
    /// else the SQLite file in the data directory. A `postgresql://` URL names a PostgreSQL
    /// database; anything else an SQLite file.
    func chatLocation(_ database: String? = nil) -> ChatStore.Location {
        if let database, !database.isEmpty { return ChatStore.Location(database) }
        if let variable = ProcessInfo.processInfo.environment["SOTTO_DATABASE"], !variable.isEmpty {
            return ChatStore.Location(variable)
        }
        return .sqlite(path: chatDatabase.path)
    }

    /// The chat database (created, with the data directory, when missing; migrated to this
    /// build's schema).
    func openChatStore(database: String? = nil, durability: ChatStore.Durability = .full) async throws -> ChatStore {
        try createHome()
        var options = ChatStore.Options()
        options.durability = durability
        return try await ChatStore.open(chatLocation(database), options: options)
    }

    /// The secret that signs sign-in tokens: `SOTTO_SECRET`, or the data directory's `secret`.
    func loadSecret() throws -> String {
        try AppSecret.load(home: home.path)
    }
}
