import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server

/// Issue 27: tokens can be revoked and users disabled (as `sotto token revoke` and `sotto user
/// disable` do, on the store), and a running server refuses them from then on, sockets included.
@Suite(.serialized) struct AccessControlTests {
    @Test func aRevokedTokenIsRefusedAndItsSocketClosed() throws {
        let server = try TestServer.shared()
        let (alice, bob, _) = try server.pair()
        let old = server.token(alice, lifetime: 3600)
        let socket = try WebSocketClient(port: server.port, path: "/api/connect?token=\(old)")
        #expect(try socket.receiveJSON()?["type"] as? String == "hello")

        let generation = try server.store.revokeTokens(of: alice)
        #expect(server.server.accessMonitor.refresh())  // a running server reads it within a second
        let refused = try HTTPClient(port: server.port, token: old).get("/api/me")
        #expect(refused.status == 401)
        #expect(refused.errorCode == "token_revoked")
        let error = try socket.receive(until: { $0["type"] as? String == "error" }, timeout: 5)
        #expect((error["error"] as? [String: Any])?["code"] as? String == "token_revoked")
        #expect(try socket.receive(timeout: 5) == nil)  // closed

        // A token of the new generation works; bob's were never touched.
        let fresh = server.server.tokens.token(for: alice, lifetime: 3600, generation: generation)
        #expect(try HTTPClient(port: server.port, token: fresh).get("/api/me").status == 200)
        #expect(try server.client(bob).get("/api/me").status == 200)
        // Refreshing keeps the generation.
        let refreshed = try HTTPClient(port: server.port, token: fresh).post("/api/token", [String: Any]())
        let token = try #require(try refreshed.json()["token"] as? String)
        #expect(try HTTPClient(port: server.port, token: token).get("/api/me").status == 200)
    }

    @Test func aDisabledUserIsRefusedEverywhereUntilEnabled() throws {
        let server = try TestServer.shared()
        let (alice, _, cid) = try server.pair()
        let socket = try server.socket(alice)
        #expect(try socket.receiveJSON()?["type"] as? String == "hello")
        try server.store.setDisabled(true, for: alice)
        server.server.accessMonitor.refresh()
        for response in [
            try server.client(alice).get("/api/me"), try server.client(alice).get(channelPath(cid, "/messages")),
            try server.client(alice).post("/v1/chat/completions", ["model": "x", "messages": []]),
        ] {
            #expect(response.status == 401, "\(response.text)")
        }
        #expect(try server.client(alice).get("/api/me").errorCode == "user_disabled")
        #expect(try socket.receive(until: { $0["type"] as? String == "error" }, timeout: 5)["error"] != nil)
        #expect(try socket.receive(timeout: 5) == nil)
        let again = try server.socket(alice)
        #expect(again.refusal?.status == 401)

        try server.store.setDisabled(false, for: alice)
        server.server.accessMonitor.refresh()
        #expect(try server.client(alice).get("/api/me").status == 200)
    }

    /// The server notices a change made by another process (the command line) by itself.
    @Test func theMonitorPollsTheStore() throws {
        let server = try TestServer.shared()
        let (alice, _, _) = try server.pair()
        let token = server.token(alice, lifetime: 3600)
        let other = try ChatStore(path: server.folder + "/chat.sqlite")  // as `sotto token revoke` opens it
        try other.revokeTokens(of: alice)
        let deadline = Date().addingTimeInterval(10)
        var status = 200
        while status == 200, Date() < deadline {
            status = try HTTPClient(port: server.port, token: token).get("/api/me").status
            if status == 200 { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(status == 401)
    }
}

/// Issue 27: one user's sockets are capped (16 by default), so that they cannot use up the
/// per-address cap that every user behind one reverse proxy shares.
@Suite struct SocketCapTests {
    @Test func aUsersSocketsAreCappedAndOthersAreNotHeldUp() throws {
        let server = try TestServer { $0.maxSocketsPerUser = 3 }
        defer { server.server.stop() }
        let (alice, bob, _) = try server.pair()
        var open: [WebSocketClient] = []
        for _ in 0..<3 {
            let socket = try server.socket(alice)
            #expect(try socket.receiveJSON()?["type"] as? String == "hello")
            open.append(socket)
        }
        let fourth = try server.socket(alice)
        #expect(fourth.refusal?.status == 429)
        #expect(fourth.refusal?.errorCode == "too_many_sockets")
        #expect(fourth.refusal?.headers["retry-after"] != nil)
        // Authenticating by message instead: closed with 4429 after the error.
        let byMessage = try WebSocketClient(port: server.port, path: "/api/connect")
        try byMessage.send(json: ["type": "auth", "token": server.token(alice)])
        let error = try #require(try byMessage.receiveJSON())
        #expect((error["error"] as? [String: Any])?["code"] as? String == "too_many_sockets")
        #expect(try byMessage.receive() == nil)
        // Bob, behind the same address, connects.
        let bobs = try server.socket(bob)
        #expect(try bobs.receiveJSON()?["type"] as? String == "hello")
        // One of alice's closes: she may open another.
        open.removeFirst()
        let deadline = Date().addingTimeInterval(5)
        var again = try server.socket(alice)
        while again.refusal != nil, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            again = try server.socket(alice)
        }
        #expect(try again.receiveJSON()?["type"] as? String == "hello")
    }
}
