import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server
@testable import ServerKit

@Suite struct WebSocketTests {
    @Test func eventsArriveLiveWithIncreasingSequenceNumbers() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, cid) = try await server.pair()
        let socket = try await server.socket(alice)
        let hello = try await #require(try socket.receiveJSON())
        #expect(hello["type"] as? String == "hello")
        #expect(hello["user_id"] as? String == alice.rawValue)
        let startSeq = try #require(hello["last_seq"] as? Int)

        _ = try await server.client(bob).post(channelPath(cid, "/messages"), ["text": "Are you there?"])
        let event = try await socket.receive(until: { $0["type"] as? String == "message.new" })
        // One log for the server: other channels' events (other tests) fall between a user's.
        let messageSeq = try #require(event["seq"] as? Int)
        #expect(messageSeq > startSeq)
        #expect(event["cid"] as? String == cid.cid)
        #expect((event["message"] as? [String: Any])?["text"] as? String == "Are you there?")
        #expect((event["message"] as? [String: Any])?["user_id"] as? String == bob.rawValue)

        _ = try await server.client(bob).post(channelPath(cid, "/typing"), ["typing": true])
        let typing = try await socket.receive(until: { $0["type"] as? String == "typing.start" })
        #expect(typing["user_id"] as? String == bob.rawValue)
        let typingSeq = try #require(typing["seq"] as? Int)
        #expect(typingSeq > messageSeq)

        _ = try await server.client(alice).post(
            channelPath(cid, "/messages"), ["id": "reply-\(cid.id)", "text": "Yes"])
        let own = try await socket.receive(until: { $0["type"] as? String == "message.new" })
        #expect(try #require(own["seq"] as? Int) > typingSeq)  // the author gets their own message too
        _ = try await server.client(bob).post(channelPath(cid, "/read"), [String: Any]())
        let read = try await socket.receive(until: { $0["type"] as? String == "message.read" })
        #expect(read["user_id"] as? String == bob.rawValue)
        #expect((read["read"] as? [String: Any])?["last_read_message_id"] as? String == "reply-\(cid.id)")
    }

    @Test func reconnectingWithTheLastSequenceNumberReplaysWhatWasMissed() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, cid) = try await server.pair()
        let bobClient = server.client(bob)
        var lastSeq = 0
        do {
            let socket = try await server.socket(alice)
            _ = try await socket.receiveJSON()  // hello
            _ = try await bobClient.post(channelPath(cid, "/messages"), ["text": "one"])
            lastSeq = try await #require(
                try socket.receive(until: { $0["type"] as? String == "message.new" })["seq"] as? Int)
        }  // the socket closes here
        for text in ["two", "three", "four"] {
            _ = try await bobClient.post(channelPath(cid, "/messages"), ["text": text])
        }

        let resumed = try await server.socket(alice, query: "since=\(lastSeq)")
        await #expect(try resumed.receiveJSON()?["type"] as? String == "hello")
        var replayed: [(Int, String)] = []
        while replayed.count < 3 {
            let event = try await #require(try resumed.receiveJSON(timeout: 30))
            if let seq = event["seq"] as? Int, let message = event["message"] as? [String: Any] {
                replayed.append((seq, message["text"] as? String ?? ""))
            }
        }
        #expect(replayed.map(\.1) == ["two", "three", "four"])
        #expect(replayed.first!.0 > lastSeq && replayed.map(\.0) == replayed.map(\.0).sorted())

        // And live delivery carries on after the replay.
        _ = try await bobClient.post(channelPath(cid, "/messages"), ["text": "five"])
        let live = try await resumed.receive(until: { $0["type"] as? String == "message.new" })
        #expect(try #require(live["seq"] as? Int) > replayed.last!.0)
    }

    @Test func aSequenceNumberThatIsGoneGetsAResync() async throws {
        var options = ChatStore.Options()
        options.eventRetention = .seconds(60)
        let server = try await TestServer(storeOptions: options)
        defer { server.server.stop() }
        let (alice, bob, cid) = try await server.pair()
        for text in ["a", "b", "c"] {
            _ = try await server.client(bob).post(channelPath(cid, "/messages"), ["text": text])
        }
        try await server.store.pruneEvents(now: Timestamp(milliseconds: Timestamp.now.milliseconds + 120_000))

        let stale = try await server.socket(alice, query: "since=1")
        await #expect(try stale.receiveJSON()?["type"] as? String == "hello")
        let resync = try await #require(try stale.receiveJSON())
        #expect(resync["type"] as? String == "resync")
        #expect(resync["last_seq"] as? Int == 3)

        let fromTheFuture = try await server.socket(alice, query: "since=999")
        _ = try await fromTheFuture.receiveJSON()
        await #expect(try fromTheFuture.receiveJSON()?["type"] as? String == "resync")
        // After a resync, live events continue from the current sequence number.
        _ = try await server.client(bob).post(channelPath(cid, "/messages"), ["text": "d"])
        await #expect(try fromTheFuture.receive(until: { $0["type"] as? String == "message.new" })["seq"] as? Int == 4)
    }

    @Test func socketsNeedAValidToken() async throws {
        let server = try await TestServer.shared()
        let (alice, _, _) = try await server.pair()
        let forged = TokenAuthority(secret: "not-the-server-secret-at-all").token(for: alice)
        let refused = try await WebSocketClient(port: server.port, path: "/api/connect?token=\(forged)")
        #expect(refused.refusal?.status == 401)
        #expect(refused.refusal?.errorCode == "token_signature_invalid")
        let badSince = try await WebSocketClient(
            port: server.port, path: "/api/connect?token=\(server.token(alice))&since=-4")
        #expect(badSince.refusal?.status == 400)

        // Authenticating with the first message works too…
        let byMessage = try await WebSocketClient(port: server.port, path: "/api/connect")
        #expect(byMessage.refusal == nil)
        try await byMessage.send(json: ["type": "auth", "token": server.token(alice)])
        await #expect(try byMessage.receiveJSON()?["type"] as? String == "hello")
        try await byMessage.send(json: ["type": "ping"])
        await #expect(try byMessage.receiveJSON()?["type"] as? String == "pong")

        // …but anything else first closes the socket with an error.
        let rude = try await WebSocketClient(port: server.port, path: "/api/connect")
        try await rude.send("{\"type\":\"typing.start\"}")
        let error = try await #require(try rude.receiveJSON())
        #expect((error["error"] as? [String: Any])?["status"] as? Int == 401)
        await #expect(try rude.receive() == nil)
    }

    @Test func typingOverTheSocketReachesTheOtherMember() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, cid) = try await server.pair()
        let aliceSocket = try await server.socket(alice)
        _ = try await aliceSocket.receiveJSON()
        let bobSocket = try await server.socket(bob)
        _ = try await bobSocket.receiveJSON()
        try await bobSocket.send(json: ["type": "typing.start", "cid": cid.cid])
        let typing = try await aliceSocket.receive(until: { $0["type"] as? String == "typing.start" })
        #expect(typing["user_id"] as? String == bob.rawValue)
        try await bobSocket.send("not json")
        await #expect((try bobSocket.receiveJSON()?["error"] as? [String: Any])?["code"] as? String == "malformed_json")
        let outsider = try await server.outsider()
        let carol = try await server.socket(outsider)
        _ = try await carol.receiveJSON()
        try await carol.send(json: ["type": "typing.start", "cid": cid.cid])
        await #expect((try carol.receiveJSON()?["error"] as? [String: Any])?["status"] as? Int == 404)
    }
}
