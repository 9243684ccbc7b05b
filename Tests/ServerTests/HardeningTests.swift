import ChatStore
import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import Server
@testable import ServerKit

/// The holes issue 14 found by probing `sotto serve`, each now closed.
@Suite struct HardeningTests {
    @Test func creatingUsersTakesAnAdminToken() async throws {
        let server = try await TestServer.shared()
        let (alice, _, _) = try await server.pair()
        let tag = UUID().uuidString.prefix(8).lowercased()
        let mallory = "mallory-\(tag)"
        let refused = try await server.client(alice).post(
            "/api/users", ["users": [["id": mallory, "name": "M \(tag)"]]])
        #expect(refused.status == 403)
        await #expect(try server.store.user(UserID(rawValue: mallory)) == nil)
        let admin = HTTPClient(port: server.port, token: server.token(UserID(rawValue: "admin-\(tag)"), admin: true))
        let created = try await admin.post("/api/users", ["users": [["id": mallory, "name": "M \(tag)"]]])
        #expect(created.status == 200)
        await #expect(try server.store.user(UserID(rawValue: mallory))?.name == "M \(tag)")
    }

    @Test func namesThatImpersonateAreRefused() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, _) = try await server.pair()
        let bobName = try await #require(try server.store.user(bob)?.name)
        let taken = try await server.client(alice).post(
            "/api/users", ["users": [["id": alice.rawValue, "name": bobName]]])
        #expect(taken.status == 409)
        let bidi = try await server.client(alice).post(
            "/api/users", ["users": [["id": alice.rawValue, "name": "\u{202E}\(bobName)"]]])
        #expect(bidi.status == 400)
        #expect(bidi.errorCode == "invalid_argument")
    }

    @Test func aTokenUserCanCreateAChannelBeforeEverCallingMe() async throws {
        let server = try await TestServer.shared()
        let tag = UUID().uuidString.prefix(8).lowercased()
        let fresh = UserID(rawValue: "fresh-\(tag)")
        let response = try await server.client(fresh).post("/api/channels", ["cid": "messaging:fresh-\(tag)"])
        #expect(response.status == 201)
    }

    @Test func badPercentEncodingInTheQueryIsRefused() async throws {
        let server = try await TestServer.shared()
        let (alice, _, cid) = try await server.pair()
        let history = try await server.client(alice).get(channelPath(cid, "/messages?before=%ff"))
        #expect(history.status == 400)
        #expect(history.headers["content-type"] == "application/json")
        let socket = try await WebSocketClient(
            port: server.port, path: "/api/connect?token=\(server.token(alice))&since=%ff")
        #expect(socket.refusal?.status == 400)
    }

    @Test func aToneForSomeoneElsesChannelIsNotKept() async throws {
        let server = try await TestServer.shared()
        let (_, _, cid) = try await server.pair()
        let outsider = try await server.outsider()
        let response = try await server.client(outsider).get(channelPath(cid, "/suggestions?tone=formal"))
        #expect(response.status == 404)
        #expect(server.server.scheduler.preferredTone(for: .init(user: outsider, cid: cid)) == nil)
    }

    @Test func everyAnswerCarriesNosniffAndNoWildcardCORS() async throws {
        let server = try await TestServer.shared()
        let client = HTTPClient(port: server.port)
        for path in ["/api/health", "/", "/app.js", "/api/nothing", "/api/me"] {
            let response = try await client.request("GET", path, headers: ["Origin": "https://evil.example"])
            #expect(response.headers["x-content-type-options"] == "nosniff", "\(path)")
            #expect(response.headers["access-control-allow-origin"] == nil, "\(path)")
        }
        let preflight = try await client.request(
            "OPTIONS", "/api/me", headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "GET"])
        #expect(preflight.headers["access-control-allow-origin"] == nil)
        #expect(preflight.status == 404 || preflight.status == 405)
        #expect(preflight.errorCode != nil)
    }

    @Test func corsAnswersOnlyTheListedOrigins() async throws {
        let server = try await TestServer { $0.corsOrigins = ["https://chat.example.com"] }
        defer { server.server.stop() }
        let client = HTTPClient(port: server.port)
        let preflight = try await client.request(
            "OPTIONS", "/api/me",
            headers: ["Origin": "https://chat.example.com", "Access-Control-Request-Method": "GET"])
        #expect(preflight.status == 204)
        #expect(preflight.headers["access-control-allow-origin"] == "https://chat.example.com")
        let other = try await client.request("GET", "/api/health", headers: ["Origin": "https://other.example.com"])
        #expect(other.headers["access-control-allow-origin"] == nil)
    }

    @Test func webSocketsFromAnotherOriginAreRefused() async throws {
        let server = try await TestServer.shared()
        let (alice, _, _) = try await server.pair()
        let token = server.token(alice)
        let evil = try await WebSocketClient(
            port: server.port, path: "/api/connect?token=\(token)", headers: ["Origin": "https://evil.example"])
        #expect(evil.refusal?.status == 403)
        #expect(evil.refusal?.errorCode == "origin_not_allowed")
        let same = try await WebSocketClient(
            port: server.port, path: "/api/connect?token=\(token)",
            headers: ["Origin": "http://127.0.0.1:\(server.port)"])
        #expect(same.refusal == nil)
    }

    @Test func aSocketIsClosedWhenItsTokenExpires() async throws {
        let server = try await TestServer.shared()
        let (alice, bob, cid) = try await server.pair()
        let socket = try await WebSocketClient(
            port: server.port, path: "/api/connect?token=\(server.token(alice, lifetime: 2))", timeout: 10)
        _ = try await socket.receive(until: { $0["type"] as? String == "hello" })
        let closing = try await socket.receive(until: { $0["type"] as? String == "error" }, timeout: 6)
        #expect((closing["error"] as? [String: Any])?["code"] as? String == "token_expired")
        await #expect(try socket.receive() == nil)
        // Nothing reaches it after that, and the TCP connection goes too.
        _ = try await server.client(bob).post(channelPath(cid, "/messages"), ["text": "after expiry"])
        #expect(await socket.socket.isClosedByPeer())
    }

    @Test func anUnauthenticatedSocketIsClosedWithinSeconds() async throws {
        let server = try await TestServer.shared()
        let socket = try await WebSocketClient(port: server.port, path: "/api/connect", timeout: 10)
        let started = Date()
        let error = try await #require(try socket.receiveJSON(timeout: 9))
        #expect((error["error"] as? [String: Any])?["code"] as? String == "token_missing")
        await #expect(try socket.receive() == nil)
        #expect(await socket.socket.isClosedByPeer())
        #expect(Date().timeIntervalSince(started) < 8)
    }

    @Test func tooManyRequestsGet429WithRetryAfter() async throws {
        let server = try await TestServer {
            // One more request every 20 s: the five below come faster than that however busy the
            // machine is, so the fourth and fifth find the burst spent.
            $0.userRequestsPerSecond = 0.05
            $0.userBurst = 3
        }
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        var statuses: [WireResponse] = []
        for _ in 0..<5 { statuses.append(try await server.client(alice).get("/api/me")) }
        #expect(statuses.prefix(3).allSatisfy { $0.status == 200 })
        let limited = try #require(statuses.last)
        #expect(limited.status == 429)
        #expect(limited.errorCode == "rate_limited")
        #expect(Int(limited.headers["retry-after"] ?? "") ?? 0 >= 1)
        await #expect(try HTTPClient(port: server.port).get("/api/health").status == 200)  // public routes unaffected
    }

    @Test func aRefreshedTokenKeepsTheSessionGoing() async throws {
        let server = try await TestServer.shared()
        let (alice, _, _) = try await server.pair()
        let client = HTTPClient(port: server.port, token: server.token(alice, lifetime: 600))
        let response = try await client.request("POST", "/api/token")
        #expect(response.status == 200)
        let token = try #require(try response.json()["token"] as? String)
        let claims = try server.server.tokens.verify(token)
        #expect(claims.user == alice)
        #expect(claims.expiresAt.map { $0 - claims.issuedAt } == 600)
        let forever = try await server.client(alice).request("POST", "/api/token")
        #expect(forever.status == 403)
    }

    /// A client that stops reading is dropped once its unsent bytes pass the bound, and
    /// reconnecting with the last seq it saw gets the rest: nothing lost, nothing twice.
    @Test func aSlowReaderIsDroppedAndResumesWithoutLoss() async throws {
        var options = ChatStore.Options()
        options.durability = .normal
        let server = try await TestServer(storeOptions: options) { $0.webSocketMaxQueuedBytes = 16 * 1024 }
        defer { server.server.stop() }
        let (alice, bob, cid) = try await server.pair()
        let slow = try await WebSocketClient(
            port: server.port, path: "/api/connect?token=\(server.token(alice))", timeout: 10, receiveBuffer: 2048)
        let hello = try await #require(try slow.receiveJSON())
        let start = try #require(hello["last_seq"] as? Int)
        let count = 2000
        for index in 0..<count {
            // The store hands each event to the server's sockets as it commits.
            _ = try await server.store.sendMessage(
                NewMessage(
                    id: MessageID(rawValue: "slow-\(index)-\(cid.id)"), cid: cid, author: bob, text: "message \(index)")
            )
        }
        // Read what reached the socket before the server dropped it.
        var seen: [Int: String] = [:]
        var last = start
        while let event = try? await slow.receiveJSON(timeout: 5) {
            if let seq = event["seq"] as? Int, let message = event["message"] as? [String: Any] {
                #expect(seq > last)
                last = seq
                seen[seq] = message["id"] as? String
            }
        }
        #expect(seen.count < count, "the slow socket was never dropped")
        let resumed = try await WebSocketClient(
            port: server.port, path: "/api/connect?token=\(server.token(alice))&since=\(last)", timeout: 10)
        _ = try await resumed.receive(until: { $0["type"] as? String == "hello" })
        while seen.count < count {
            let event = try await resumed.receive(until: { $0["seq"] != nil })
            let seq = try #require(event["seq"] as? Int)
            #expect(seq > last)
            last = seq
            seen[seq] = (event["message"] as? [String: Any])?["id"] as? String
        }
        #expect(Set(seen.values).count == count)
    }

    @Test func internalErrorsAreOpaqueAndLogged() async throws {
        let logged = LogLines()
        var routes = RouteList()
        routes.add("GET", "/api/boom", authenticated: false, APIOperation(id: "boom", summary: "", answers: [])) { _ in
            throw DatabaseError(resultCode: 1, message: "no such table: secrets", sql: "SELECT * FROM secrets")
        }
        let router = Router(
            routes: routes, authenticate: { _ in throw AuthError.missing }, log: { logged.append($0) })
        let response = await router.respond(to: HTTPRequest(method: "GET", path: "/api/boom"))
        #expect(response.status == 500)
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(!text.contains("secrets") && !text.contains("SELECT"))
        let id = try #require(response.header("X-Request-Id"))
        #expect(text.contains(id))
        #expect(logged.lines.count == 1)
        #expect(logged.lines.first?.contains(id) == true)
        #expect(logged.lines.first?.contains("SQLITE_ERROR") == true)
    }
}

/// Lines a router logged, for tests.
final class LogLines: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched inside `lock`.
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) {
        lock.lock()
        stored.append(line)
        lock.unlock()
    }
    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
