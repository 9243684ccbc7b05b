import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server
@testable import ServerKit

@Suite struct APIAuthTests {
    @Test func missingForgedAndExpiredTokensGet401() async throws {
        let server = try await TestServer.shared()
        let anonymous = HTTPClient(port: server.port)
        let missing = try await anonymous.get("/api/channels")
        #expect(missing.status == 401)
        #expect(missing.errorCode == "token_missing")
        #expect(missing.headers["www-authenticate"] == "Bearer")

        var forged = anonymous
        forged.token = TokenAuthority(secret: "someone-elses-secret-value").token(for: "alice")
        await #expect(try forged.get("/api/channels").errorCode == "token_signature_invalid")

        var expired = anonymous
        expired.token = server.token("alice", lifetime: 60, now: Date().addingTimeInterval(-3600))
        let expiredResponse = try await expired.get("/api/channels")
        #expect(expiredResponse.status == 401)
        #expect(expiredResponse.errorCode == "token_expired")

        let basic = try await anonymous.request(
            "GET", "/api/channels", headers: ["Authorization": "Basic YWxpY2U6eA=="])
        #expect(basic.errorCode == "token_malformed")
        await #expect(try anonymous.get("/api/health").status == 200)  // public
    }

    @Test func meCreatesTheUserOnFirstUse() async throws {
        let server = try await TestServer.shared()
        let user = UserID(rawValue: "new-\(UUID().uuidString.prefix(8).lowercased())")
        let me = try await server.client(user).get("/api/me")
        #expect(me.status == 200)
        #expect(((try me.json())["user"] as? [String: Any])?["name"] as? String == user.rawValue)
    }
}

@Suite struct APIMembershipTests {
    /// A channel's existence is its members' business: a non-member gets the 404 a missing
    /// channel gets (issue 27; it was a 403 `not_a_member`).
    @Test func nonMembersGet404Everywhere() async throws {
        let server = try await TestServer.shared()
        let (_, _, cid) = try await server.pair()
        let carol = await server.client(try server.outsider())
        let attempts = await [
            try carol.get(channelPath(cid)),
            try carol.get(channelPath(cid, "/messages")),
            try carol.post(channelPath(cid, "/messages"), ["text": "let me in"]),
            try carol.post(channelPath(cid, "/read"), [String: Any]()),
            try carol.post(channelPath(cid, "/typing"), ["typing": true]),
            try carol.get(channelPath(cid, "/suggestions")),
            try carol.post("/api/channels", ["cid": cid.cid]),
        ]
        for response in attempts {
            #expect(response.status == 404, "\(response.text)")
            #expect(response.errorCode == "not_found")
        }
        let missing = try await carol.get(channelPath(ChannelID(type: "messaging", id: "does-not-exist"), "/messages"))
        #expect(missing.status == 404)
    }

    @Test func channelsAreCreatedOnceWithTheirMembers() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, _) = try await server.pair()
        let cid = "team:plans-\(UUID().uuidString.prefix(6).lowercased())"
        let created = try await server.client(alice).post(
            "/api/channels", ["cid": cid, "name": "Plans", "members": [bob.rawValue]])
        #expect(created.status == 201)
        let again = try await server.client(bob).post("/api/channels", ["cid": cid])
        #expect(again.status == 200)
        let members = ((try again.json())["members"] as? [[String: Any]])?.compactMap {
            ($0["user"] as? [String: Any])?["id"] as? String
        }
        #expect(members == [alice.rawValue, bob.rawValue])
        let unknown = try await server.client(alice).post(
            "/api/channels", ["cid": cid + "x", "members": ["nobody-here"]])
        #expect(unknown.status == 404)
    }

    @Test func usersMayRenameOnlyThemselves() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, _) = try await server.pair()
        let renameSelf = try await server.client(alice).post(
            "/api/users", ["users": [["id": alice.rawValue, "name": "Ally"]]])
        #expect(renameSelf.status == 200)
        let renameOther = try await server.client(alice).post(
            "/api/users", ["users": [["id": bob.rawValue, "name": "Robert"]]])
        #expect(renameOther.status == 403)
        await #expect(try server.store.user(bob)?.name.hasPrefix("Bob") == true)
    }
}

@Suite struct APIMessageTests {
    @Test func retriedSendsAreStoredOnce() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, cid) = try await server.pair()
        let client = server.client(alice)
        let first = try await client.post(channelPath(cid, "/messages"), ["id": "retry-1-\(cid.id)", "text": "Hello"])
        let retry = try await client.post(channelPath(cid, "/messages"), ["id": "retry-1-\(cid.id)", "text": "Hello"])
        #expect(first.status == 201)
        #expect(retry.status == 200)
        #expect((try retry.json())["created"] as? Bool == false)
        #expect(
            ((try first.json())["message"] as? [String: Any])?["created_at"] as? String
                == ((try retry.json())["message"] as? [String: Any])?["created_at"] as? String)
        let history = try await server.client(bob).get(channelPath(cid, "/messages"))
        #expect(((try history.json())["messages"] as? [Any])?.count == 1)
        let clash = try await client.post(channelPath(cid, "/messages"), ["id": "retry-1-\(cid.id)", "text": "Other"])
        #expect(clash.status == 409)
    }

    @Test func historyPagesBackwards() async throws {
        let server = try await TestServer.shared()
        let (alice, _, cid) = try await server.pair()
        let client = server.client(alice)
        for index in 0..<12 { _ = try await client.post(channelPath(cid, "/messages"), ["text": "m\(index)"]) }
        func texts(_ response: WireResponse) async throws -> [String] {
            ((try response.json())["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } ?? []
        }
        let newest = try await client.get(channelPath(cid, "/messages?limit=5"))
        await #expect(try texts(newest) == ["m7", "m8", "m9", "m10", "m11"])
        #expect((try newest.json())["has_more"] as? Bool == true)
        let firstID = (((try newest.json())["messages"] as? [[String: Any]])?.first?["id"] as? String) ?? ""
        let older = try await client.get(channelPath(cid, "/messages?limit=5&before=\(firstID)"))
        await #expect(try texts(older) == ["m2", "m3", "m4", "m5", "m6"])
        let oldestID = (((try older.json())["messages"] as? [[String: Any]])?.first?["id"] as? String) ?? ""
        let oldest = try await client.get(channelPath(cid, "/messages?limit=5&before=\(oldestID)"))
        await #expect(try texts(oldest) == ["m0", "m1"])
        #expect((try oldest.json())["has_more"] as? Bool == false)
        await #expect(try client.get(channelPath(cid, "/messages?limit=0")).status == 400)
        await #expect(try client.get(channelPath(cid, "/messages?limit=abc")).status == 400)
        await #expect(try client.get(channelPath(cid, "/messages?before=unknown-id")).status == 404)
    }

    @Test func unreadCountsAndMarkRead() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, cid) = try await server.pair()
        for index in 0..<3 {
            _ = try await server.client(alice).post(channelPath(cid, "/messages"), ["text": "hi \(index)"])
        }
        func unread() async throws -> Int? {
            let channels = await (try server.client(bob).get("/api/channels").json())["channels"] as? [[String: Any]]
            return channels?.first { ($0["channel"] as? [String: Any])?["cid"] as? String == cid.cid }?["unread_count"]
                as? Int
        }
        await #expect(try unread() == 3)
        // An empty body marks up to the newest.
        let read = try await server.client(bob).request("POST", channelPath(cid, "/read"))
        #expect(read.status == 200)
        await #expect(try unread() == 0)
    }
}

@Suite struct APIInputTests {
    @Test func malformedBodiesGet400WithAReason() async throws {
        let server = try await TestServer.shared()
        let (alice, _, cid) = try await server.pair()
        let client = server.client(alice)
        let path = channelPath(cid, "/messages")
        let cases: [(body: String, reason: String)] = [
            ("{", "malformed JSON"),
            ("[1,2]", "must be a JSON object"),
            ("\"text\"", "must be a JSON object"),
            ("{}", "missing field 'text'"),
            (#"{"text": 5}"#, "field 'text' must be a string"),
            (#"{"text": null}"#, "field 'text'"),
            (#"{"text": "hi", "id": "bad id!"}"#, "invalid id"),
            (#"{"text": "   "}"#, "must not be empty"),
            (String(repeating: "[", count: 10_000), "must be a JSON object"),
            ("{" + String(repeating: "\"a\":{", count: 5_000), "malformed JSON"),
            ("\u{FF}\u{FE}", "must be a JSON object"),
        ]
        for (body, reason) in cases {
            let response = try await client.request(
                "POST", path, body: Array(body.utf8), headers: ["Content-Type": "application/json"])
            #expect(response.status == 400, "\(body.prefix(30)): \(response.text)")
            let message = ((try? response.json())?["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains(reason), "\(body.prefix(30)) → \(message)")
        }
        let wrongType = try await client.request(
            "POST", path, body: Array("text=hi".utf8), headers: ["Content-Type": "text/plain"])
        #expect(wrongType.status == 415)
        let users = try await client.post("/api/users", ["users": [["id": "ok", "name": 3]]])
        #expect(
            ((try users.json())["error"] as? [String: Any])?["message"] as? String
                == "field 'users[0].name' must be a string")
    }

    @Test func oversizedBodiesGet413AndTheServerCarriesOn() async throws {
        let server = try await TestServer.shared()
        let (alice, _, cid) = try await server.pair()
        let client = server.client(alice)
        let huge = #"{"text":""# + String(repeating: "x", count: 70_000) + #""}"#
        let response = try await client.request("POST", channelPath(cid, "/messages"), body: Array(huge.utf8))
        #expect(response.status == 413)
        let long = #"{"text":""# + String(repeating: "x", count: 4001) + #""}"#
        await #expect(try client.request("POST", channelPath(cid, "/messages"), body: Array(long.utf8)).status == 400)
        await #expect(try client.get("/api/health").status == 200)
    }

    @Test func badPathsAndMethods() async throws {
        let server = try await TestServer.shared()
        let (alice, _, _) = try await server.pair()
        let client = server.client(alice)
        await #expect(try client.get("/api/channels/not-a-cid/messages").status == 400)
        await #expect(try client.get("/api/channels/messaging%3A%FF/messages").status == 400)
        await #expect(try client.get("/api/nothing-here").status == 404)
        let wrongMethod = try await client.request("DELETE", "/api/channels")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["allow"] == "GET, POST")
        await #expect(try client.get("/api/connect").status == 426)
        await #expect(try client.get("/api/channels/messaging%3Ax/suggestions?tone=angry").status == 400)
    }

    @Test func garbageOnTheSocketGetsAnAnswerNotACrash() async throws {
        let server = try await TestServer.shared()
        let client = HTTPClient(port: server.port)
        for junk in [
            "GARBAGE\r\n\r\n", "GET /api/health HTTP/9.9\r\n\r\n",
            "GET " + String(repeating: "a", count: 20_000) + " HTTP/1.1\r\n\r\n",
        ] {
            let socket = try TestSocket(port: server.port)
            try await socket.write(junk)
            _ = try? await socket.readToEnd()
        }
        await #expect(try client.get("/api/health").status == 200)
    }
}

@Suite struct StaticFileTests {
    @Test func theWebAppIsServed() async throws {
        let server = try await TestServer.shared()
        let client = HTTPClient(port: server.port)
        let index = try await client.get("/")
        #expect(index.status == 200)
        #expect(index.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(index.text.contains("<label for=\"token-input\">Token</label>"))
        #expect(index.headers["content-security-policy"]?.contains("script-src 'self'") == true)
        // Images only from the server, inline data, and blob: URLs the app made (the assistant's
        // thumbnails, fetched with the token).
        #expect(index.headers["content-security-policy"]?.contains("img-src 'self' data: blob:;") == true)
        let script = try await client.get("/app.js")
        #expect(script.headers["content-type"]?.hasPrefix("text/javascript") == true)
        // Model output and messages go in as text: no module parses strings as HTML.
        let modules = ["app", "api", "events", "suggestions", "jobs", "tools", "search", "summary", "actions", "dates"]
        for name in modules {
            let module = try await client.get("/\(name).js")
            #expect(module.status == 200, "\(name).js")
            for sink in [
                "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "DOMParser",
                "createContextualFragment",
            ] {
                #expect(!module.text.contains(sink), "\(name).js uses \(sink)")
            }
        }
        await #expect(try client.get("/../Package.swift").status == 404)
        await #expect(try client.get("/secret").status == 404)
    }
}
