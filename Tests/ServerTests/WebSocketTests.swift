import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server

@Suite struct WebSocketTests {
    @Test func eventsArriveLiveWithIncreasingSequenceNumbers() throws {
        let server = try TestServer.shared()
        let (alice, bob, cid) = try server.pair()
        let socket = try server.socket(alice)
        let hello = try #require(try socket.receiveJSON())
        #expect(hello["type"] as? String == "hello")
        #expect(hello["user_id"] as? String == alice.rawValue)
        let startSeq = try #require(hello["last_seq"] as? Int)

        _ = try server.client(bob).post(channelPath(cid, "/messages"), ["text": "Are you there?"])
        let event = try socket.receive(until: { $0["type"] as? String == "message.new" })
        // One log for the server: other channels' events (other tests) fall between a user's.
        let messageSeq = try #require(event["seq"] as? Int)
        #expect(messageSeq > startSeq)
        #expect(event["cid"] as? String == cid.cid)
        #expect((event["message"] as? [String: Any])?["text"] as? String == "Are you there?")
        #expect((event["message"] as? [String: Any])?["user_id"] as? String == bob.rawValue)

        _ = try server.client(bob).post(channelPath(cid, "/typing"), ["typing": true])
        let typing = try socket.receive(until: { $0["type"] as? String == "typing.start" })
        #expect(typing["user_id"] as? String == bob.rawValue)
        let typingSeq = try #require(typing["seq"] as? Int)
        #expect(typingSeq > messageSeq)

        _ = try server.client(alice).post(channelPath(cid, "/messages"), ["id": "reply-\(cid.id)", "text": "Yes"])
        let own = try socket.receive(until: { $0["type"] as? String == "message.new" })
        #expect(try #require(own["seq"] as? Int) > typingSeq)  // the author gets their own message too
        _ = try server.client(bob).post(channelPath(cid, "/read"), [String: Any]())
        let read = try socket.receive(until: { $0["type"] as? String == "message.read" })
        #expect(read["user_id"] as? String == bob.rawValue)
        #expect((read["read"] as? [String: Any])?["last_read_message_id"] as? String == "reply-\(cid.id)")
    }

    @Test func reconnectingWithTheLastSequenceNumberReplaysWhatWasMissed() throws {
        let server = try TestServer.shared()
        let (alice, bob, cid) = try server.pair()
        let bobClient = server.client(bob)
        var lastSeq = 0
        do {
            let socket = try server.socket(alice)
            _ = try socket.receiveJSON()  // hello
            _ = try bobClient.post(channelPath(cid, "/messages"), ["text": "one"])
            lastSeq = try #require(try socket.receive(until: { $0["type"] as? String == "message.new" })["seq"] as? Int)
        }  // the socket closes here
        for text in ["two", "three", "four"] { _ = try bobClient.post(channelPath(cid, "/messages"), ["text": text]) }

        let resumed = try server.socket(alice, query: "since=\(lastSeq)")
        #expect(try resumed.receiveJSON()?["type"] as? String == "hello")
        var replayed: [(Int, String)] = []
        while replayed.count < 3 {
            let event = try #require(try resumed.receiveJSON(timeout: 5))
            if let seq = event["seq"] as? Int, let message = event["message"] as? [String: Any] {
                replayed.append((seq, message["text"] as? String ?? ""))
            }
        }
        #expect(replayed.map(\.1) == ["two", "three", "four"])
        #expect(replayed.first!.0 > lastSeq && replayed.map(\.0) == replayed.map(\.0).sorted())

        // And live delivery carries on after the replay.
        _ = try bobClient.post(channelPath(cid, "/messages"), ["text": "five"])
        let live = try resumed.receive(until: { $0["type"] as? String == "message.new" })
        #expect(try #require(live["seq"] as? Int) > replayed.last!.0)
    }

    @Test func aSequenceNumberThatIsGoneGetsAResync() throws {
        var options = ChatStore.Options()
        options.eventRetention = .seconds(60)
        let server = try TestServer(storeOptions: options)
        defer { server.server.stop() }
        let (alice, bob, cid) = try server.pair()
        for text in ["a", "b", "c"] { _ = try server.client(bob).post(channelPath(cid, "/messages"), ["text": text]) }
        try server.store.pruneEvents(now: Timestamp(milliseconds: Timestamp.now.milliseconds + 120_000))

        let stale = try server.socket(alice, query: "since=1")
        #expect(try stale.receiveJSON()?["type"] as? String == "hello")
        let resync = try #require(try stale.receiveJSON())
        #expect(resync["type"] as? String == "resync")
        #expect(resync["last_seq"] as? Int == 3)

        let fromTheFuture = try server.socket(alice, query: "since=999")
        _ = try fromTheFuture.receiveJSON()
        #expect(try fromTheFuture.receiveJSON()?["type"] as? String == "resync")
        // After a resync, live events continue from the current sequence number.
        _ = try server.client(bob).post(channelPath(cid, "/messages"), ["text": "d"])
        #expect(try fromTheFuture.receive(until: { $0["type"] as? String == "message.new" })["seq"] as? Int == 4)
    }

    @Test func socketsNeedAValidToken() throws {
        let server = try TestServer.shared()
        let (alice, _, _) = try server.pair()
        let forged = TokenAuthority(secret: "not-the-server-secret-at-all").token(for: alice)
        let refused = try WebSocketClient(port: server.port, path: "/api/connect?token=\(forged)")
        #expect(refused.refusal?.status == 401)
        #expect(refused.refusal?.errorCode == "token_signature_invalid")
        let badSince = try WebSocketClient(
            port: server.port, path: "/api/connect?token=\(server.token(alice))&since=-4")
        #expect(badSince.refusal?.status == 400)

        // Authenticating with the first message works too…
        let byMessage = try WebSocketClient(port: server.port, path: "/api/connect")
        #expect(byMessage.refusal == nil)
        try byMessage.send(json: ["type": "auth", "token": server.token(alice)])
        #expect(try byMessage.receiveJSON()?["type"] as? String == "hello")
        try byMessage.send(json: ["type": "ping"])
        #expect(try byMessage.receiveJSON()?["type"] as? String == "pong")

        // …but anything else first closes the socket with an error.
        let rude = try WebSocketClient(port: server.port, path: "/api/connect")
        try rude.send("{\"type\":\"typing.start\"}")
        let error = try #require(try rude.receiveJSON())
        #expect((error["error"] as? [String: Any])?["status"] as? Int == 401)
        #expect(try rude.receive() == nil)
    }

    @Test func typingOverTheSocketReachesTheOtherMember() throws {
        let server = try TestServer.shared()
        let (alice, bob, cid) = try server.pair()
        let aliceSocket = try server.socket(alice)
        _ = try aliceSocket.receiveJSON()
        let bobSocket = try server.socket(bob)
        _ = try bobSocket.receiveJSON()
        try bobSocket.send(json: ["type": "typing.start", "cid": cid.cid])
        let typing = try aliceSocket.receive(until: { $0["type"] as? String == "typing.start" })
        #expect(typing["user_id"] as? String == bob.rawValue)
        try bobSocket.send("not json")
        #expect((try bobSocket.receiveJSON()?["error"] as? [String: Any])?["code"] as? String == "malformed_json")
        let outsider = try server.outsider()
        let carol = try server.socket(outsider)
        _ = try carol.receiveJSON()
        try carol.send(json: ["type": "typing.start", "cid": cid.cid])
        #expect((try carol.receiveJSON()?["error"] as? [String: Any])?["status"] as? Int == 404)
    }
}
