import ChatStore
import ModelStore
import Server

extension ModelStore {
    /// The chat database in the data directory (created, with the directory, when missing).
    func openChatStore(durability: ChatStore.Durability = .full) async throws -> ChatStore {
        try createHome()
        var options = ChatStore.Options()
        options.durability = durability
        return try await ChatStore.open(path: chatDatabase.path, options: options)
    }

    /// The secret that signs sign-in tokens: `SOTTO_SECRET`, or the data directory's `secret`.
    func loadSecret() throws -> String {
        try AppSecret.load(home: home.path)
    }
}
