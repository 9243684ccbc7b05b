import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server

/// Public and private channels made from the app (issue 24): browse and join public ones, add
/// and remove members, rename and set the topic; another user's ids get 404 or 403, never data.
@Suite struct TeamChannelsAPITests {
    private func created(_ server: TestServer, by user: UserID, _ body: [String: Any]) async throws -> String {
        let response = try await server.client(user).post("/api/team-channels", body)
        try #require(response.status == 201, "\(response.text)")
        return try #require((try response.json()["channel"] as? [String: Any])?["cid"] as? String)
    }

    private func path(_ cid: String, _ rest: String = "") -> String {
        "/api/channels/" + cid.replacingOccurrences(of: ":", with: "%3A") + rest
    }

    @Test func aPublicChannelIsListedToEveryoneWhoMayJoinIt() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, _) = try await server.pair()
        let tag = UUID().uuidString.prefix(6)
        let cid = try await created(
            server, by: alice, ["name": "Trips \(tag)", "topic": "Where next?", "public": true])
        #expect(cid.hasPrefix("team:trips-"))
        let listed = try await server.client(bob).get("/api/team-channels")
        let entry = try #require(
            (try listed.json()["channels"] as? [[String: Any]])?.first {
                ($0["channel"] as? [String: Any])?["cid"] as? String == cid
            })
        #expect(entry["joined"] as? Bool == false)
        #expect(entry["member_count"] as? Int == 1)
        #expect((entry["channel"] as? [String: Any])?["topic"] as? String == "Where next?")
        await #expect(try server.client(bob).get(path(cid, "/messages")).status == 404)  // not yet a member

        let socket = try await server.socket(alice)
        _ = try await socket.receiveJSON()
        let joined = try await server.client(bob).post(path(cid, "/join"), [String: Any]())
        #expect(joined.status == 200)
        let event = try await socket.receive(until: { $0["type"] as? String == "member.added" })
        #expect(event["user_id"] as? String == bob.rawValue)
        await #expect(try server.client(bob).get(path(cid, "/messages")).status == 200)
    }

    @Test func aPrivateChannelIsNeitherListedNorJoinable() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, _) = try await server.pair()
        let carol = try await server.outsider()
        let secret = "Secret \(UUID().uuidString.prefix(6))"
        let cid = try await created(server, by: alice, ["name": secret, "public": false, "members": [bob.rawValue]])
        let listed = try await server.client(carol).get("/api/team-channels")
        #expect(!listed.text.contains(secret))
        let join = try await server.client(carol).post(path(cid, "/join"), [String: Any]())
        #expect(join.status == 404)
        #expect(!join.text.contains(secret))
        // Carol cannot add herself, rename it or take anyone out.
        await #expect(try server.client(carol).post(path(cid, "/members"), ["members": [carol.rawValue]]).status == 404)
        await #expect(
            try server.client(carol).request("PATCH", path(cid), json: ["topic": "mine"]).status == 404)
        await #expect(
            try server.client(carol).request("DELETE", path(cid, "/members/\(bob.rawValue)")).status == 404)
        // A member adds her; she is in.
        await #expect(try server.client(bob).post(path(cid, "/members"), ["members": [carol.rawValue]]).status == 200)
        await #expect(try server.client(carol).get(path(cid, "/messages")).status == 200)
        // Only the creator (or an administrator) takes others out; anyone may leave.
        await #expect(
            try server.client(bob).request("DELETE", path(cid, "/members/\(carol.rawValue)")).status == 403)
        await #expect(
            try server.client(alice).request("DELETE", path(cid, "/members/\(carol.rawValue)")).status == 204)
        await #expect(try server.client(carol).get(path(cid, "/messages")).status == 404)
        await #expect(
            try server.client(bob).request("DELETE", path(cid, "/members/\(bob.rawValue)")).status == 204)
    }

    @Test func namesAndTopicsAreCheckedAndChangesReachTheMembers() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, _) = try await server.pair()
        let cid = try await created(
            server, by: alice,
            ["name": "Plans \(UUID().uuidString.prefix(6))", "public": true, "members": [bob.rawValue]])
        let socket = try await server.socket(bob)
        _ = try await socket.receiveJSON()
        let topic = "<img src=x onerror=alert(1)> lunch"
        let updated = try await server.client(alice).request("PATCH", path(cid), json: ["topic": topic])
        #expect(updated.status == 200)
        let event = try await socket.receive(until: { $0["type"] as? String == "channel.updated" })
        #expect((event["channel"] as? [String: Any])?["topic"] as? String == topic)  // kept as text
        for bad in [["topic": "a\u{202E}b"], ["topic": String(repeating: "x", count: 251)], ["name": " "]] {
            await #expect(try server.client(alice).request("PATCH", path(cid), json: bad).status == 400, "\(bad)")
        }
        await #expect(try server.client(alice).post("/api/team-channels", ["name": "x\u{0000}y"]).status == 400)
        // A direct message's members are fixed.
        let direct = try await server.client(alice).post("/api/channels", ["members": [bob.rawValue]])
        let dm = try #require((try direct.json()["channel"] as? [String: Any])?["cid"] as? String)
        let carol = try await server.outsider()
        await #expect(try server.client(alice).post(path(dm, "/members"), ["members": [carol.rawValue]]).status == 400)
    }
}
