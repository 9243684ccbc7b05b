import ChatStore
import Foundation

/// A fresh database in its own temporary folder.
///
/// The folder outlives the value (a test may keep using `store` after its last use of the
/// `TemporaryStore`) and goes when the test process exits.
final class TemporaryStore {
    let folder: String
    let store: ChatStore

    init(options: ChatStore.Options = ChatStore.Options()) async throws {
        folder = try TestFolders.make("store")
        store = try await ChatStore.open(path: folder + "/chat.sqlite", options: options)
    }

    /// alice, bob and carol; `messaging:hike` with alice and bob.
    func seeded() async throws -> ChannelID {
        _ = try await store.upsertUsers(
            [.init(id: "alice", name: "Alice"), .init(id: "bob", name: "Bob"), .init(id: "carol", name: "Carol")],
            by: nil)
        let cid = ChannelID(type: "messaging", id: "hike")
        _ = try await store.getOrCreateChannel(cid, name: "Hike", members: ["bob"], by: "alice")
        return cid
    }
}
