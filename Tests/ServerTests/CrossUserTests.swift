import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server

/// Every route that names a channel, a message or a file, taken from the OpenAPI document (so a
/// route added later is covered without being listed here), called by someone outside the
/// channel with the ids of another's channel, message, reply and file: 404 or 403, never their
/// data, and nothing of theirs changed.
@Suite struct CrossUserTests {
    @Test func anOutsiderGetsNothingFromAnyRouteWithAnothersIds() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, cid) = try await server.pair()
        let client = server.client(alice)
        let secret = "zanzibar-\(UUID().uuidString.prefix(8))"
        let uploaded = try await client.request(
            "POST", channelPath(cid, "/attachments?name=\(secret).txt"), body: Array("file \(secret)".utf8),
            headers: ["Content-Type": "text/plain"])
        let file = try #require((try uploaded.json()["attachment"] as? [String: Any])?["id"] as? String)
        let sent = try await client.post(
            channelPath(cid, "/messages"), ["text": "plans \(secret)", "attachment_ids": [file]])
        let message = try #require((try sent.json()["message"] as? [String: Any])?["id"] as? String)
        _ = try await client.request("PATCH", "/api/messages/\(message)", json: ["text": "plans \(secret) v2"])
        let replied = try await server.client(bob).post(
            channelPath(cid, "/messages"), ["text": "reply \(secret)", "parent_id": message])
        let reply = try #require((try replied.json()["message"] as? [String: Any])?["id"] as? String)
        _ = try await server.client(bob).request("PUT", "/api/messages/\(message)/reactions/%F0%9F%91%8D")

        let document = try await client.get("/api/openapi.json").json()
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let carol = server.client(try await server.outsider())
        var called: [String] = []
        for (path, operations) in paths.sorted(by: { $0.key < $1.key }) where !path.hasPrefix("/api/assistant") {
            guard ["{cid}", "{message_id}", "{attachment_id}"].contains(where: path.contains) else { continue }
            for method in operations.keys.sorted() where ["get", "post", "put", "patch", "delete"].contains(method) {
                for messageID in path.contains("{message_id}") ? [message, reply] : [message] {
                    let filled = path.replacingOccurrences(of: "{cid}", with: cid.cid)
                        .replacingOccurrences(of: "{message_id}", with: messageID)
                        .replacingOccurrences(of: "{attachment_id}", with: file)
                        .replacingOccurrences(of: "{user_id}", with: bob.rawValue)
                        .replacingOccurrences(of: "{emoji}", with: "%F0%9F%91%8D")
                    let upper = method.uppercased()
                    let response: WireResponse
                    if filled.hasSuffix("/attachments") {
                        response = try await carol.request(
                            upper, filled + "?name=x.txt", body: Array("hello".utf8),
                            headers: ["Content-Type": "text/plain"])
                    } else if upper == "GET" || upper == "DELETE" {
                        response = try await carol.request(upper, filled)
                    } else {
                        // A body every one of these routes takes, so that what answers is the
                        // membership check, not the validation.
                        response = try await carol.request(
                            upper, filled,
                            json: [
                                "text": "hello", "members": [bob.rawValue], "name": "Taken", "topic": "mine",
                                "typing": true, "language": "fr", "thread": messageID, "time_zone": "Europe/Paris",
                            ])
                    }
                    called.append("\(upper) \(path)")
                    #expect(
                        [403, 404].contains(response.status), "\(upper) \(filled): \(response.status) \(response.text)")
                    #expect(!response.text.contains(secret), "\(upper) \(filled) leaked: \(response.text)")
                }
            }
        }
        // The routes of this work are among them.
        for route in [
            "GET /api/messages/{message_id}/thread", "POST /api/messages/{message_id}/thread/read",
            "POST /api/channels/{cid}/attachments", "GET /api/attachments/{attachment_id}",
            "GET /api/attachments/{attachment_id}/thumbnail", "PATCH /api/messages/{message_id}",
            "PUT /api/messages/{message_id}/reactions/{emoji}", "DELETE /api/channels/{cid}/members/{user_id}",
        ] {
            #expect(called.contains(route), "\(route) was not called")
        }
        // Nothing of Alice's changed.
        let page = try await client.get(channelPath(cid, "/messages")).json()
        let kept = try #require((page["messages"] as? [[String: Any]])?.first { $0["id"] as? String == message })
        #expect(kept["text"] as? String == "plans \(secret) v2")
        #expect((kept["reactions"] as? [[String: Any]])?.count == 1)
        #expect(kept["reply_count"] as? Int == 1)
        let detail = try await client.get("/api/channels/\(cid.cid)").json()
        #expect(((detail["channel"] as? [String: Any])?["name"] as? String) != "Taken")
        #expect((detail["members"] as? [[String: Any]])?.count == 2)
        #expect(try await client.get("/api/attachments/\(file)").status == 200)
    }
}
