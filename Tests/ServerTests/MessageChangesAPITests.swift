import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server

/// Editing, deleting and reacting over the API (issue 24): another user's ids get 404 or 403,
/// never data; the channel hears of each change as an event.
@Suite struct MessageChangesAPITests {
    private func sent(_ server: TestServer, by user: UserID, in cid: ChannelID, _ text: String) async throws -> String {
        let response = try await server.client(user).post(channelPath(cid, "/messages"), ["text": text])
        try #require(response.status == 201, "\(response.text)")
        return try #require((try response.json()["message"] as? [String: Any])?["id"] as? String)
    }

    @Test func theAuthorEditsAndTheChannelHearsOfIt() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, cid) = try await server.pair()
        let id = try await sent(server, by: alice, in: cid, "Saturday at 8?")
        let socket = try await server.socket(bob)
        _ = try await socket.receiveJSON()  // hello

        let edited = try await server.client(alice).request(
            "PATCH", "/api/messages/\(id)", json: ["text": "Saturday at 9?"])
        #expect(edited.status == 200)
        let message = try #require(try edited.json()["message"] as? [String: Any])
        #expect(message["text"] as? String == "Saturday at 9?")
        #expect(message["edited_at"] is String)
        let event = try await socket.receive(until: { $0["type"] as? String == "message.updated" })
        #expect((event["message"] as? [String: Any])?["text"] as? String == "Saturday at 9?")

        let history = try await server.client(alice).get("/api/messages/\(id)/edits")
        #expect((try history.json()["edits"] as? [[String: Any]])?.map { $0["text"] as? String } == ["Saturday at 8?"])
        // Not the author: 403, and the history is not theirs to read.
        let stolen = try await server.client(bob).request("PATCH", "/api/messages/\(id)", json: ["text": "mine"])
        #expect(stolen.status == 403)
        await #expect(try server.client(bob).get("/api/messages/\(id)/edits").status == 403)
    }

    @Test func anotherUsersMessageIdsGetNothing() async throws {
        let server = try await TestServer.shared()
        let (alice, _, cid) = try await server.pair()
        let id = try await sent(server, by: alice, in: cid, "private words")
        let carol = server.client(try await server.outsider())
        let attempts = [
            try await carol.request("PATCH", "/api/messages/\(id)", json: ["text": "x"]),
            try await carol.request("DELETE", "/api/messages/\(id)"),
            try await carol.get("/api/messages/\(id)/edits"),
            try await carol.request("PUT", "/api/messages/\(id)/reactions/%F0%9F%91%8D"),
        ]
        for response in attempts {
            #expect(response.status == 404)
            #expect(!response.text.contains("private words"))
        }
        await #expect(try server.store.message(MessageID(rawValue: id))?.text == "private words")
    }

    @Test func deletingLeavesATombstoneAndAdministratorsDeleteAny() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, cid) = try await server.pair()
        let id = try await sent(server, by: alice, in: cid, "oops, wrong channel")
        await #expect(try server.client(bob).request("DELETE", "/api/messages/\(id)").status == 403)
        let socket = try await server.socket(bob)
        _ = try await socket.receiveJSON()
        let deleted = try await server.client(alice).request("DELETE", "/api/messages/\(id)")
        #expect(deleted.status == 200)
        #expect((try deleted.json()["message"] as? [String: Any])?["text"] as? String == "")
        let event = try await socket.receive(until: { $0["type"] as? String == "message.deleted" })
        #expect((event["message"] as? [String: Any])?["deleted_at"] is String)
        let page = try await server.client(bob).get(channelPath(cid, "/messages"))
        #expect(!page.text.contains("wrong channel"))

        let other = try await sent(server, by: bob, in: cid, "spam")
        var admin = HTTPClient(port: server.port)
        admin.token = server.token(UserID(rawValue: "root-\(UUID().uuidString.prefix(6))"), admin: true)
        await #expect(try admin.request("DELETE", "/api/messages/\(other)").status == 200)
    }

    @Test func reactionsArePercentEncodedEmojiAndNothingElse() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, cid) = try await server.pair()
        let id = try await sent(server, by: alice, in: cid, "Hike?")
        let thumbs = "/api/messages/\(id)/reactions/%F0%9F%91%8D"
        _ = try await server.client(alice).request("PUT", thumbs)
        let both = try await server.client(bob).request("PUT", thumbs)
        #expect(both.status == 200)
        let reactions = try #require((try both.json()["message"] as? [String: Any])?["reactions"] as? [[String: Any]])
        #expect(reactions.first?["emoji"] as? String == "👍")
        #expect(reactions.first?["count"] as? Int == 2)
        #expect(reactions.first?["users"] as? [String] == [alice.rawValue, bob.rawValue])
        let back = try await server.client(bob).request("DELETE", thumbs)
        #expect(
            ((try back.json()["message"] as? [String: Any])?["reactions"] as? [[String: Any]])?.first?["count"] as? Int
                == 1)
        for bad in ["%3Cscript%3E", "ok", "%E2%80%AE"] {
            let refused = try await server.client(bob).request("PUT", "/api/messages/\(id)/reactions/\(bad)")
            #expect(refused.status == 400, "\(bad)")
        }
    }
}
