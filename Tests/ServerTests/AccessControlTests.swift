import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server

/// Issue 27: tokens can be revoked and users disabled (as `sotto token revoke` and `sotto user
/// disable` do, on the store), and a running server refuses them from then on, sockets included.
@Suite(.serialized) struct AccessControlTests {
    @Test func aRevokedTokenIsRefusedAndItsSocketClosed() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, _) = try await server.pair()
        let old = server.token(alice, lifetime: 3600)
        let socket = try await WebSocketClient(port: server.port, path: "/api/connect?token=\(old)")
        #expect(try await socket.receiveJSON()?["type"] as? String == "hello")

        let generation = try await server.store.revokeTokens(of: alice)
        // A running server reads it within a second (its own tick may come first).
        await server.server.accessMonitor.refresh()
        let refused = try await HTTPClient(port: server.port, token: old).get("/api/me")
        #expect(refused.status == 401)
        #expect(refused.errorCode == "token_revoked")
        let error = try await socket.receive(until: { $0["type"] as? String == "error" }, timeout: 30)
        #expect((error["error"] as? [String: Any])?["code"] as? String == "token_revoked")
        #expect(try await socket.receive(timeout: 30) == nil)  // closed

        // A token of the new generation works; bob's were never touched.
        let fresh = server.server.tokens.token(for: alice, lifetime: 3600, generation: generation)
        #expect(try await HTTPClient(port: server.port, token: fresh).get("/api/me").status == 200)
        #expect(try await server.client(bob).get("/api/me").status == 200)
        // Refreshing keeps the generation.
        let refreshed = try await HTTPClient(port: server.port, token: fresh).post("/api/token", [String: Any]())
        let token = try #require(try refreshed.json()["token"] as? String)
        #expect(try await HTTPClient(port: server.port, token: token).get("/api/me").status == 200)
    }

    @Test func aDisabledUserIsRefusedEverywhereUntilEnabled() async throws {
        let server = try await TestServer.shared()
        let (alice, _, cid) = try await server.pair()
        let socket = try await server.socket(alice)
        #expect(try await socket.receiveJSON()?["type"] as? String == "hello")
        try await server.store.setDisabled(true, for: alice)
        await server.server.accessMonitor.refresh()
        for response in [
            try await server.client(alice).get("/api/me"),
            try await server.client(alice).get(channelPath(cid, "/messages")),
            try await server.client(alice).post("/v1/chat/completions", ["model": "x", "messages": []]),
        ] {
            #expect(response.status == 401, "\(response.text)")
        }
        #expect(try await server.client(alice).get("/api/me").errorCode == "user_disabled")
        #expect(try await socket.receive(until: { $0["type"] as? String == "error" }, timeout: 30)["error"] != nil)
        #expect(try await socket.receive(timeout: 30) == nil)
        let again = try await server.socket(alice)
        #expect(again.refusal?.status == 401)

        try await server.store.setDisabled(false, for: alice)
        await server.server.accessMonitor.refresh()
        #expect(try await server.client(alice).get("/api/me").status == 200)
    }

    /// The server notices a change made by another process (the command line) by itself.
    @Test func theMonitorPollsTheStore() async throws {
        let server = try await TestServer.shared()
        let (alice, _, _) = try await server.pair()
        let token = server.token(alice, lifetime: 3600)
        let other = try await ChatStore.open(path: server.folder + "/chat.sqlite")  // as `sotto token revoke` opens it
        try await other.revokeTokens(of: alice)
        let deadline = Date().addingTimeInterval(10)
        var status = 200
        while status == 200, Date() < deadline {
            status = try await HTTPClient(port: server.port, token: token).get("/api/me").status
            if status == 200 { try await Task.sleep(for: .seconds(0.1)) }
        }
        #expect(status == 401)
    }
}

/// Issue 27: one user's sockets are capped (16 by default), so that they cannot use up the
/// per-address cap that every user behind one reverse proxy shares.
@Suite struct SocketCapTests {
    @Test func aUsersSocketsAreCappedAndOthersAreNotHeldUp() async throws {
        let server = try await TestServer { $0.maxSocketsPerUser = 3 }
        defer { server.server.stop() }
        let (alice, bob, _) = try await server.pair()
        var open: [WebSocketClient] = []
        for _ in 0..<3 {
            let socket = try await server.socket(alice)
            #expect(try await socket.receiveJSON()?["type"] as? String == "hello")
            open.append(socket)
        }
        let fourth = try await server.socket(alice)
        #expect(fourth.refusal?.status == 429)
        #expect(fourth.refusal?.errorCode == "too_many_sockets")
        #expect(fourth.refusal?.headers["retry-after"] != nil)
        // Authenticating by message instead: closed with 4429 after the error.
        let byMessage = try await WebSocketClient(port: server.port, path: "/api/connect")
        try await byMessage.send(json: ["type": "auth", "token": server.token(alice)])
        let error = try #require(try await byMessage.receiveJSON())
        #expect((error["error"] as? [String: Any])?["code"] as? String == "too_many_sockets")
        #expect(try await byMessage.receive() == nil)
        // Bob, behind the same address, connects.
        let bobs = try await server.socket(bob)
        #expect(try await bobs.receiveJSON()?["type"] as? String == "hello")
        // One of alice's closes: she may open another.
        open.removeFirst()
        let deadline = Date().addingTimeInterval(5)
        var again = try await server.socket(alice)
        while again.refusal != nil, Date() < deadline {
            try await Task.sleep(for: .seconds(0.05))
            again = try await server.socket(alice)
        }
        #expect(try await again.receiveJSON()?["type"] as? String == "hello")
    }
}
