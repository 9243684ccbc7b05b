import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server

@Suite struct SuggestionAPITests {
    @Test func suggestionsArriveAsEventsAndFollowTheConversation() async throws {
        let server = try await TestServer(suggester: GatedSuggester(open: true))
        defer { server.server.stop() }
        let (alice, bob, cid) = try await server.pair()
        await #expect((try HTTPClient(port: server.port).get("/api/health").json())["suggestions"] as? Bool == true)
        let empty = try await server.client(alice).get(channelPath(cid, "/suggestions"))
        #expect((try empty.json())["status"] as? String == "none")  // nothing said yet

        let socket = try await server.socket(alice)
        _ = try await socket.receiveJSON()  // hello
        _ = try await server.client(bob).post(channelPath(cid, "/messages"), ["text": "Pizza tonight?"])
        let asked = try await server.client(alice).get(channelPath(cid, "/suggestions?tone=casual")).json()
        let signature = try #require(asked["signature"] as? String)
        // (A draft for the default tone may come first: it was current when it finished.)
        let updated = try await socket.receive(until: {
            $0["type"] as? String == "suggestions.updated" && $0["signature"] as? String == signature
        })
        #expect(updated["cid"] as? String == cid.cid)
        #expect(updated["status"] as? String == "ready")
        #expect(updated["suggestions"] as? [String] == ["Reply to Pizza tonight?", "Sure!", "Maybe later"])
        let cached = try await server.client(alice).get(channelPath(cid, "/suggestions?tone=casual")).json()
        #expect(cached["status"] as? String == "ready")

        // Bob says more: Alice's suggestions are redrafted without her asking again.
        _ = try await server.client(bob).post(channelPath(cid, "/messages"), ["text": "Or sushi?"])
        let redrafted = try await socket.receive(until: {
            $0["type"] as? String == "suggestions.updated"
                && ($0["suggestions"] as? [String])?.first == "Reply to Or sushi?"
        })
        #expect(redrafted["signature"] as? String != signature)
        #expect(redrafted["status"] as? String == "ready")

        // Alice answers: her suggestions are withdrawn.
        _ = try await server.client(alice).post(channelPath(cid, "/messages"), ["text": "Sushi!"])
        let withdrawn = try await socket.receive(until: {
            $0["type"] as? String == "suggestions.updated" && $0["status"] as? String != "ready"
        })
        #expect(withdrawn["status"] as? String == "none")
        #expect(withdrawn["suggestions"] as? [String] == [])
    }

    @Test func socketsCanTurnSuggestionsOff() async throws {
        let suggester = GatedSuggester(open: true)
        let server = try await TestServer(suggester: suggester)
        defer { server.server.stop() }
        let (alice, bob, cid) = try await server.pair()
        let socket = try await server.socket(alice, query: "suggestions=off")
        _ = try await socket.receiveJSON()
        _ = try await server.client(bob).post(channelPath(cid, "/messages"), ["text": "One"])
        await #expect(try server.client(alice).get(channelPath(cid, "/suggestions")).status == 200)
        _ = try await socket.receive(until: { $0["type"] as? String == "suggestions.updated" })  // asked explicitly
        _ = try await server.client(bob).post(channelPath(cid, "/messages"), ["text": "Two"])
        _ = try await socket.receive(until: {
            $0["type"] as? String == "message.new" && ($0["message"] as? [String: Any])?["text"] as? String == "Two"
        })
        #expect(suggester.askedFor.map { $0.recentMessages.last?.text } == ["One"])  // not redrafted for "Two"
    }

    /// The suggester reads the last 8 to 11 messages, the window starting every 4 messages.
    @Test func theSuggesterReadsTheConversationsWindow() async throws {
        let suggester = GatedSuggester(open: true)
        let server = try await TestServer(suggester: suggester)
        defer { server.server.stop() }
        let (alice, bob, cid) = try await server.pair()
        let socket = try await server.socket(alice)
        _ = try await socket.receiveJSON()
        for index in 1...13 {
            _ = try await server.client(bob).post(channelPath(cid, "/messages"), ["text": "m\(index)"])
        }
        await #expect(try server.client(alice).get(channelPath(cid, "/suggestions")).status == 200)
        _ = try await socket.receive(until: {
            $0["type"] as? String == "suggestions.updated" && ($0["suggestions"] as? [String])?.first == "Reply to m13"
        })
        #expect(suggester.askedFor.last?.recentMessages.map(\.text) == (5...13).map { "m\($0)" })
    }
}
