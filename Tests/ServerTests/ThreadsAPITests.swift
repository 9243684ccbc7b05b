import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server

/// Threads over the API (issue 24): replies in their thread and out of the channel's page, a
/// thread's own unread state and its `thread.read` event, chips and summaries inside a thread,
/// and nothing of it for someone outside the channel.
@Suite struct ThreadsAPITests {
    private func sent(
        _ server: TestServer, by user: UserID, in cid: ChannelID, _ text: String, parent: String? = nil
    ) async throws -> String {
        var body: [String: Any] = ["text": text]
        if let parent { body["parent_id"] = parent }
        let response = try await server.client(user).post(channelPath(cid, "/messages"), body)
        try #require(response.status == 201, "\(response.text)")
        return try #require((try response.json()["message"] as? [String: Any])?["id"] as? String)
    }

    @Test func aReplyGoesToItsThreadWhichHasItsOwnUnreadState() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, cid) = try await server.pair()
        let root = try await sent(server, by: alice, in: cid, "Which trail on Saturday?")
        let reply = try await sent(server, by: bob, in: cid, "The ridge", parent: root)

        let page = try await server.client(alice).get(channelPath(cid, "/messages")).json()
        let messages = try #require(page["messages"] as? [[String: Any]])
        #expect(messages.map { $0["id"] as? String } == [root])
        #expect(messages[0]["reply_count"] as? Int == 1)
        #expect(messages[0]["last_reply_at"] is String)
        let unread = try #require(page["unread_replies"] as? [[String: Any]])
        #expect(unread.map { $0["parent_id"] as? String } == [root])
        #expect(unread.map { $0["count"] as? Int } == [1])

        let channels = try await server.client(alice).get("/api/channels").json()
        let listed = try #require(
            (channels["channels"] as? [[String: Any]])?.first {
                ($0["channel"] as? [String: Any])?["cid"] as? String == cid.cid
            })
        #expect(listed["unread_threads"] as? Int == 1)
        #expect(listed["unread_count"] as? Int == 0)

        // The reply's id stands for its thread.
        let thread = try await server.client(alice).get("/api/messages/\(reply)/thread").json()
        #expect((thread["parent"] as? [String: Any])?["id"] as? String == root)
        #expect((thread["messages"] as? [[String: Any]])?.map { $0["text"] as? String } == ["The ridge"])
        #expect(thread["unread"] as? Int == 1)
        #expect(thread["following"] as? Bool == true)

        let socket = try await server.socket(alice)
        _ = try await socket.receiveJSON()  // hello
        let read = try await server.client(alice).post("/api/messages/\(root)/thread/read", [:]).json()
        #expect(read["changed"] as? Bool == true)
        let event = try await socket.receive(until: { $0["type"] as? String == "thread.read" })
        #expect(event["parent_id"] as? String == root)
        #expect(event["cid"] as? String == cid.cid)
        let again = try await server.client(alice).get("/api/messages/\(root)/thread").json()
        #expect(again["unread"] as? Int == 0)

        // Replies nest one level, under a message that exists.
        let nested = try await server.client(bob).post(
            channelPath(cid, "/messages"), ["text": "deeper", "parent_id": reply])
        #expect(nested.status == 400)
        let unknown = try await server.client(bob).post(
            channelPath(cid, "/messages"), ["text": "x", "parent_id": "no-such-message"])
        #expect(unknown.status == 404)
    }

    @Test func someoneOutsideTheChannelGetsNothingOfAThread() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, cid) = try await server.pair()
        let root = try await sent(server, by: alice, in: cid, "private plans zanzibar")
        _ = try await sent(server, by: bob, in: cid, "secret reply", parent: root)
        let carolID = try await server.outsider()
        let carol = server.client(carolID)
        let attempts = [
            try await carol.get("/api/messages/\(root)/thread"),
            try await carol.post("/api/messages/\(root)/thread/read", [:]),
            try await carol.post(channelPath(cid, "/messages"), ["text": "me too", "parent_id": root]),
            try await carol.get(channelPath(cid, "/suggestions?thread=\(root)")),
            try await carol.post(channelPath(cid, "/summary"), ["thread": root]),
        ]
        for response in attempts {
            #expect(response.status == 404, "\(response.text)")
            #expect(!response.text.contains("zanzibar"))
            #expect(!response.text.contains("secret reply"))
        }
        // A member of another channel names this thread from their own channel: still nothing.
        let (dave, _, daves) = try await server.pair()
        let crossed = try await server.client(dave).get(channelPath(daves, "/suggestions?thread=\(root)"))
        #expect(crossed.status == 404)
        let summary = try await server.client(dave).post(channelPath(daves, "/summary"), ["thread": root])
        #expect(summary.status == 404)
        await #expect(try server.store.thread(of: MessageID(rawValue: root), for: alice).messages.count == 1)
    }

    @Test func chipsInsideAThreadAnswerTheThreadAndAnEditRedraftsThem() async throws {
        let server = try await TestServer(suggester: GatedSuggester(open: true))
        defer { server.server.stop() }
        let (alice, bob, cid) = try await server.pair()
        let root = try await sent(server, by: bob, in: cid, "Pizza tonight?")
        _ = try await sent(server, by: bob, in: cid, "Unrelated news")
        let socket = try await server.socket(alice)
        _ = try await socket.receiveJSON()  // hello

        let asked = try await server.client(alice).get(channelPath(cid, "/suggestions?thread=\(root)")).json()
        #expect(asked["parent_id"] as? String == root)
        let first = try await socket.receive(until: {
            $0["type"] as? String == "suggestions.updated" && $0["parent_id"] as? String == root
                && $0["status"] as? String == "ready"
        })
        #expect((first["suggestions"] as? [String])?.first == "Reply to Pizza tonight?")

        let reply = try await sent(server, by: bob, in: cid, "Or sushi?", parent: root)
        let redrafted = try await socket.receive(until: {
            $0["type"] as? String == "suggestions.updated" && $0["parent_id"] as? String == root
                && ($0["suggestions"] as? [String])?.first == "Reply to Or sushi?"
        })
        #expect(redrafted["cid"] as? String == cid.cid)

        // Bob edits his reply: the chips drawn from it are drafted again from the new text.
        let edited = try await server.client(bob).request(
            "PATCH", "/api/messages/\(reply)", json: ["text": "Or tacos?"])
        #expect(edited.status == 200)
        _ = try await socket.receive(until: {
            $0["type"] as? String == "suggestions.updated" && $0["parent_id"] as? String == root
                && ($0["suggestions"] as? [String])?.first == "Reply to Or tacos?"
        })
        // Bob deletes it: the model reads the thread without it.
        await #expect(try server.client(bob).request("DELETE", "/api/messages/\(reply)").status == 200)
        _ = try await socket.receive(until: {
            $0["type"] as? String == "suggestions.updated" && $0["parent_id"] as? String == root
                && ($0["suggestions"] as? [String])?.first == "Reply to Pizza tonight?"
        })
        // The channel's own chips answer the channel, not the thread.
        let channel = try await server.client(alice).get(channelPath(cid, "/suggestions")).json()
        #expect(channel["parent_id"] == nil)
        let channelChips = try await socket.receive(until: {
            $0["type"] as? String == "suggestions.updated" && $0["parent_id"] == nil
                && $0["status"] as? String == "ready"
        })
        #expect((channelChips["suggestions"] as? [String])?.first == "Reply to Unrelated news")
    }
}
