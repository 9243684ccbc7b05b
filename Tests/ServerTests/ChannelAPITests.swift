import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server

/// Issue 27: channel squatting, leaving, and a channel's existence hidden from non-members.
@Suite struct ChannelAPITests {
    @Test func aSquattersChannelIsNotOpenedForThoseItNames() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, _) = try await server.pair()
        let mallory = try await server.outsider()
        let cid = "messaging:squat-\(UUID().uuidString.prefix(6).lowercased())"
        let made = try await server.client(mallory).post(
            "/api/channels", ["cid": cid, "members": [alice.rawValue, bob.rawValue]])
        #expect(made.status == 201)
        let asked = try await server.client(alice).post("/api/channels", ["cid": cid, "members": [bob.rawValue]])
        #expect(asked.status == 409, "\(asked.text)")
        #expect(!asked.text.contains("\"messages\""))
        // Nobody outside learns it exists: the same 404 as for a missing channel.
        let carol = try await server.outsider()
        let outside = try await server.client(carol).post("/api/channels", ["cid": cid])
        let missing = try await server.client(carol).post(
            "/api/channels", ["cid": cid + "-none", "members": ["nobody-x"]])
        #expect(outside.status == 404 && missing.status == 404)
        #expect(outside.errorCode == "not_found")
    }

    @Test func nonMembersGetTheSame404AsForAMissingChannel() async throws {
        let server = try await TestServer.shared()
        let (_, _, cid) = try await server.pair()
        let carol = server.client(try await server.outsider())
        let missing = ChannelID(type: "messaging", id: "missing-\(UUID().uuidString.prefix(6).lowercased())")
        for rest in ["", "/messages", "/suggestions"] {
            let existing = try await carol.get(channelPath(cid, rest))
            let absent = try await carol.get(channelPath(missing, rest))
            #expect(existing.status == 404 && absent.status == 404, "\(rest): \(existing.text)")
            #expect(
                existing.text.replacingOccurrences(of: cid.cid, with: "X")
                    == absent.text.replacingOccurrences(of: missing.cid, with: "X"), "\(rest)")
        }
        for (rest, body) in [
            ("/messages", ["text": "let me in"]), ("/read", [:]), ("/typing", ["typing": true]), ("/leave", [:]),
            ("/summary", [:]),
        ] as [(String, [String: Any])] {
            let existing = try await carol.post(channelPath(cid, rest), body)
            let absent = try await carol.post(channelPath(missing, rest), body)
            #expect(existing.status == absent.status, "\(rest): \(existing.text) vs \(absent.text)")
            #expect(existing.errorCode == absent.errorCode, "\(rest)")
        }
    }

    @Test func aMemberLeavesAndTheOthersAreTold() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, cid) = try await server.pair()
        let socket = try await server.socket(alice)
        _ = try await socket.receiveJSON()
        #expect(try await server.client(bob).post(channelPath(cid, "/leave"), [String: Any]()).status == 204)
        let event = try await socket.receive(until: { $0["type"] as? String == EventType.memberLeft }, timeout: 30)
        #expect(event["user_id"] as? String == bob.rawValue)
        #expect(try await server.client(bob).get(channelPath(cid, "/messages")).status == 404)
        let members = try await server.client(alice).get(channelPath(cid)).json()["members"] as? [[String: Any]]
        #expect(members?.count == 1)
    }

    @Test func aChannelOfItsMembersIsOneChannel() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, _) = try await server.pair()
        let made = try await server.client(alice).post("/api/channels", ["members": [bob.rawValue]])
        #expect(made.status == 201)
        let cid = try #require((try made.json()["channel"] as? [String: Any])?["cid"] as? String)
        #expect(cid.hasPrefix("messaging:!members-"))
        let again = try await server.client(bob).post("/api/channels", ["members": [alice.rawValue]])
        #expect(again.status == 200)
        #expect((try again.json()["channel"] as? [String: Any])?["cid"] as? String == cid)
        let chosen = try await server.client(alice).post("/api/channels", ["cid": "messaging:!members-x"])
        #expect(chosen.status == 400)
    }
}
