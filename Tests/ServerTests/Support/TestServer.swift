import ChatStore
import Foundation
import HTTPCore
import TestSupport

@testable import Server
@testable import ServerKit

/// A chat server on a free loopback port with a fresh temporary database.
///
/// Suites share one server per configuration and keep their data apart with unique user and
/// channel ids.
final class TestServer: @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable after init.

    static let secret = "test-secret-0123456789abcdef"

    let folder: String
    let store: ChatStore
    let server: ChatServer
    let port: Int

    /// A server on `location` (default: a new SQLite file), as several servers share one
    /// PostgreSQL database.
    init(
        suggester: (any ReplySuggester)? = nil, model: ServerModel = .none, storeOptions: ChatStore.Options = .init(),
        location: ChatStore.Location? = nil, configure: (inout ChatServer.Configuration) -> Void = { _ in }
    ) async throws {
        folder = try TestFolders.make("server")
        store = try await ChatStore.open(location ?? .sqlite(path: folder + "/chat.sqlite"), options: storeOptions)
        var configuration = ChatServer.Configuration(port: 0)
        configuration.maxBodyBytes = 64 * 1024
        configure(&configuration)
        server = ChatServer(
            store: store, secret: Self.secret, suggester: suggester, model: model, configuration: configuration)
        port = try await server.start()
    }

    private static let plain = Task { try await TestServer() }

    /// The shared server without a suggester.
    static func shared() async throws -> TestServer {
        try await plain.value
    }

    func token(_ user: UserID, lifetime: Int64? = nil, admin: Bool = false, now: Date = Date()) -> String {
        server.tokens.token(for: user, lifetime: lifetime, admin: admin, now: now)
    }

    func client(_ user: UserID?) -> HTTPClient {
        HTTPClient(port: port, token: user.map { token($0) })
    }

    func socket(_ user: UserID, query: String = "") async throws -> WebSocketClient {
        try await WebSocketClient(
            port: port, path: "/api/connect?token=\(token(user))\(query.isEmpty ? "" : "&" + query)")
    }

    /// Two new users (names "Alice …" and "Bob …") sharing a new channel.
    func pair() async throws -> (alice: UserID, bob: UserID, cid: ChannelID) {
        let tag = UUID().uuidString.prefix(8).lowercased()
        let alice = UserID(rawValue: "alice-\(tag)")
        let bob = UserID(rawValue: "bob-\(tag)")
        _ = try await store.upsertUsers(
            [.init(id: alice, name: "Alice \(tag)"), .init(id: bob, name: "Bob \(tag)")], by: nil)
        let cid = ChannelID(type: "messaging", id: "chat-\(tag)")
        _ = try await store.getOrCreateChannel(cid, name: "Chat \(tag)", members: [bob], by: alice)
        return (alice, bob, cid)
    }

    /// A user in no channel.
    func outsider() async throws -> UserID {
        let tag = UUID().uuidString.prefix(8).lowercased()
        let user = UserID(rawValue: "carol-\(tag)")
        _ = try await store.upsertUsers([.init(id: user, name: "Carol \(tag)")], by: nil)
        return user
    }
}

/// The path of a channel route, percent-encoding the cid.
func channelPath(_ cid: ChannelID, _ rest: String = "") -> String {
    "/api/channels/" + cid.cid.replacingOccurrences(of: ":", with: "%3A") + rest
}
