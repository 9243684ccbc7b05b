import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server
@testable import ServerKit

/// Passwords, the browser's cookie session and its CSRF rule, one-time links (issue 24).
@Suite struct AccountAPITests {
    /// One server for the suite, hashing with argon2id's smallest parameters (fast).
    private static let shared = Task { try await TestServer { $0.passwordHasher = .forTests() } }

    private func server() async throws -> TestServer { try await Self.shared.value }

    /// A new user whose password is `password`.
    private func user(_ server: TestServer, password: String = "correct horse") async throws -> UserID {
        let user = UserID(rawValue: "pat-\(UUID().uuidString.prefix(8).lowercased())")
        _ = try await server.store.upsertUsers([.init(id: user, name: "Pat \(user.rawValue.suffix(8))")], by: nil)
        let hash = try await PasswordHasher.forTests().hash(password)
        try await server.store.setPasswordHash(hash, for: user, signOutEverywhere: false)
        return user
    }

    /// A signed-in browser: its cookie and CSRF token.
    private struct Browser {
        var cookie: String
        var csrf: String
        var port: Int

        func request(
            _ method: String, _ path: String, json: Any? = nil, csrf: Bool = true, origin: String? = nil
        ) async throws -> WireResponse {
            var headers = ["Cookie": "other=1; \(cookie)"]
            if csrf { headers[SessionCookie.csrfHeader] = self.csrf }
            if let origin { headers["Origin"] = origin }
            return try await HTTPClient(port: port).request(method, path, json: json, headers: headers)
        }
    }

    private func signIn(_ server: TestServer, _ user: String, _ password: String) async throws -> Browser {
        let response = try await HTTPClient(port: server.port).post(
            "/api/session", ["user": user, "password": password])
        try #require(response.status == 200, "\(response.text)")
        return try browser(from: response, port: server.port)
    }

    private func browser(from response: WireResponse, port: Int) throws -> Browser {
        let setCookie = try #require(response.headers["set-cookie"])
        let cookie = try #require(setCookie.split(separator: ";").first.map(String.init))
        let csrf = try #require(try response.json()["csrf_token"] as? String)
        return Browser(cookie: cookie, csrf: csrf, port: port)
    }

    @Test func aPasswordSignsInWithACookiePageScriptsCannotRead() async throws {
        let server = try await server()
        let pat = try await user(server)
        let response = try await HTTPClient(port: server.port).post(
            "/api/session", ["user": pat.rawValue.uppercased(), "password": "correct horse"])
        #expect(response.status == 200)
        let setCookie = try #require(response.headers["set-cookie"])
        #expect(setCookie.hasPrefix("sotto_session="))
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=604800"] {
            #expect(setCookie.contains(attribute), "\(attribute) missing from \(setCookie)")
        }
        #expect(!setCookie.contains("Secure"))  // plain HTTP on loopback
        let body = try response.json()
        #expect((body["user"] as? [String: Any])?["id"] as? String == pat.rawValue)
        #expect(body["admin"] as? Bool == false)
        #expect(!response.text.contains("correct horse"))

        let browser = try self.browser(from: response, port: server.port)
        let me = try await browser.request("GET", "/api/me", csrf: false)
        #expect(me.status == 200)
        let session = try await browser.request("GET", "/api/session", csrf: false)
        #expect(try session.json()["csrf_token"] as? String == browser.csrf)
        #expect(session.headers["set-cookie"] == nil)

        // Behind a proxy that says HTTPS, the cookie is Secure.
        let proxied = try await HTTPClient(port: server.port).request(
            "POST", "/api/session", json: ["user": pat.rawValue, "password": "correct horse"],
            headers: ["X-Forwarded-Proto": "https"])
        #expect(proxied.headers["set-cookie"]?.hasSuffix("; Secure") == true)
    }

    @Test func wrongPasswordsAndUnknownUsersGetTheSameAnswer() async throws {
        let server = try await server()
        let pat = try await user(server)
        let anonymous = HTTPClient(port: server.port)
        let wrong = try await anonymous.post("/api/session", ["user": pat.rawValue, "password": "wrong horse"])
        let unknown = try await anonymous.post("/api/session", ["user": "nobody-\(pat)", "password": "correct horse"])
        // A user who signs in with tokens only has no password to match.
        let tokenOnly = try await server.outsider()
        let noPassword = try await anonymous.post("/api/session", ["user": tokenOnly.rawValue, "password": ""])
        for response in [wrong, unknown, noPassword] {
            #expect(response.status == 401)
            #expect(response.errorCode == "sign_in_failed")
            #expect(response.headers["set-cookie"] == nil)
        }
        #expect(wrong.text == unknown.text)
        await #expect(try anonymous.post("/api/session", ["user": pat.rawValue]).status == 400)
    }

    @Test func failedSignInsAreSlowedThenRefusedWithRetryAfter() async throws {
        let server = try await server()
        let pat = try await user(server)
        let anonymous = HTTPClient(port: server.port)
        for _ in 0..<SignInThrottle().account.free {
            let response = try await anonymous.post("/api/session", ["user": pat.rawValue, "password": "guess guess"])
            #expect(response.status == 401)
        }
        // Past the free attempts, even the right password waits.
        let throttled = try await anonymous.post("/api/session", ["user": pat.rawValue, "password": "correct horse"])
        #expect(throttled.status == 429)
        #expect(throttled.errorCode == "sign_in_throttled")
        let retryAfter = try #require(throttled.headers["retry-after"].flatMap(Int.init))
        #expect(retryAfter >= 1 && retryAfter <= 60)
        // Another account is not slowed by this one's failures.
        let other = try await user(server)
        await #expect(
            try anonymous.post("/api/session", ["user": other.rawValue, "password": "correct horse"]).status == 200)
    }

    @Test func aCookieSessionFollowsTheCSRFRule() async throws {
        let server = try await server()
        let pat = try await user(server)
        let browser = try await signIn(server, pat.rawValue, "correct horse")
        let rename: [String: Any] = ["users": [["id": pat.rawValue, "name": "Pat \(UUID().uuidString.prefix(6))"]]]

        let withoutToken = try await browser.request("POST", "/api/users", json: rename, csrf: false)
        #expect(withoutToken.status == 403)
        #expect(withoutToken.errorCode == "csrf_rejected")
        var forged = browser
        forged.csrf = String(browser.csrf.reversed())
        await #expect(try forged.request("POST", "/api/users", json: rename).errorCode == "csrf_rejected")
        let elsewhere = try await browser.request("POST", "/api/users", json: rename, origin: "http://evil.example")
        #expect(elsewhere.status == 403)
        // Reading from another origin is refused too (its answer would be someone's data).
        await #expect(
            try browser.request("GET", "/api/me", csrf: false, origin: "http://evil.example").status == 403)
        // A GET may leave the token out, but one it sends must match: a page whose cookie another
        // sign-in replaced learns it.
        await #expect(try forged.request("GET", "/api/me").errorCode == "csrf_rejected")
        await #expect(try browser.request("GET", "/api/me").status == 200)
        // Another user's CSRF token does not fit this session.
        let other = try await signIn(server, try await user(server).rawValue, "correct horse")
        forged.csrf = other.csrf
        await #expect(try forged.request("POST", "/api/users", json: rename).status == 403)

        let sameOrigin = try await browser.request(
            "POST", "/api/users", json: rename, origin: "http://127.0.0.1:\(server.port)")
        #expect(sameOrigin.status == 200)

        // The token survives a refresh: same sign-in, same CSRF token, a new cookie.
        let refreshed = try await browser.request("POST", "/api/session/refresh")
        #expect(refreshed.status == 200)
        #expect(try refreshed.json()["csrf_token"] as? String == browser.csrf)
        #expect(refreshed.headers["set-cookie"]?.hasPrefix("sotto_session=") == true)

        // Bearer tokens are untouched by the rule: a browser never adds them by itself.
        await #expect(try server.client(pat).post("/api/users", rename).status == 200)
        // A signed-in page cannot be signed in elsewhere by a page on another origin.
        let foreignSignIn = try await HTTPClient(port: server.port).request(
            "POST", "/api/session", json: ["user": pat.rawValue, "password": "correct horse"],
            headers: ["Origin": "http://evil.example"])
        #expect(foreignSignIn.status == 403)
    }

    @Test func aTokenIsExchangedForACookieSession() async throws {
        let server = try await server()
        let user = try await server.outsider()
        let response = try await HTTPClient(port: server.port).post("/api/session", ["token": server.token(user)])
        #expect(response.status == 200)
        let browser = try browser(from: response, port: server.port)
        await #expect(try browser.request("GET", "/api/me", csrf: false).status == 200)
        let forged = TokenAuthority(secret: "someone-elses-secret-value").token(for: user)
        await #expect(try HTTPClient(port: server.port).post("/api/session", ["token": forged]).status == 401)
    }

    @Test func signingOutEverywhereEndsEverySessionAndToken() async throws {
        let server = try await server()
        let pat = try await user(server)
        let laptop = try await signIn(server, pat.rawValue, "correct horse")
        let phone = try await signIn(server, pat.rawValue, "correct horse")
        let script = server.client(pat)
        await #expect(try script.get("/api/me").status == 200)

        let out = try await laptop.request("POST", "/api/session/everywhere")
        #expect(out.status == 204)
        #expect(out.headers["set-cookie"]?.contains("Max-Age=0") == true)
        let phoneAfter = try await phone.request("GET", "/api/me", csrf: false)
        #expect(phoneAfter.status == 401)
        #expect(phoneAfter.errorCode == "token_revoked")
        await #expect(try script.get("/api/me").errorCode == "token_revoked")
        // The password still works: a new session.
        let again = try await signIn(server, pat.rawValue, "correct horse")
        await #expect(try again.request("GET", "/api/me", csrf: false).status == 200)

        // Signing one browser out only clears its cookie.
        let signOut = try await HTTPClient(port: server.port).request("DELETE", "/api/session")
        #expect(signOut.status == 204)
        #expect(signOut.headers["set-cookie"]?.hasPrefix("sotto_session=;") == true)
    }

    @Test func changingThePasswordNeedsTheCurrentOneAndEndsOtherSessions() async throws {
        let server = try await server()
        let pat = try await user(server)
        let laptop = try await signIn(server, pat.rawValue, "correct horse")
        let phone = try await signIn(server, pat.rawValue, "correct horse")

        let wrong = try await laptop.request(
            "PUT", "/api/me/password", json: ["current_password": "wrong horse", "new_password": "battery staple"])
        #expect(wrong.status == 403)
        let short = try await laptop.request(
            "PUT", "/api/me/password", json: ["current_password": "correct horse", "new_password": "short"])
        #expect(short.status == 400)
        let changed = try await laptop.request(
            "PUT", "/api/me/password", json: ["current_password": "correct horse", "new_password": "battery staple"])
        #expect(changed.status == 200)
        let renewed = try browser(from: changed, port: server.port)
        await #expect(try renewed.request("GET", "/api/me", csrf: false).status == 200)
        await #expect(try phone.request("GET", "/api/me", csrf: false).errorCode == "token_revoked")
        await #expect(
            try HTTPClient(port: server.port).post("/api/session", ["user": pat.rawValue, "password": "correct horse"])
                .status == 401)
        _ = try await signIn(server, pat.rawValue, "battery staple")

        // A user who has only ever used tokens sets a first password without a current one.
        let scripted = try await server.outsider()
        let first = try await server.client(scripted).request(
            "PUT", "/api/me/password", json: ["new_password": "first password"])
        #expect(first.status == 200)
        _ = try await signIn(server, scripted.rawValue, "first password")
    }

    @Test func anInvitationLinkWorksOnceForThePersonItNames() async throws {
        let server = try await server()
        let invitee = "new-\(UUID().uuidString.prefix(8).lowercased())"
        let adminToken = HTTPClient(port: server.port, token: server.token("root", admin: true))
        let invite = try await adminToken.post("/api/invites", ["user": invitee, "name": "Newcomer \(invitee)"])
        #expect(invite.status == 201)
        let path = try #require(try invite.json()["path"] as? String)
        #expect(path.hasPrefix("/#join="))
        let secret = String(path.dropFirst("/#join=".count))
        #expect(LinkSecret.isWellFormed(secret))

        let anonymous = HTTPClient(port: server.port)
        let info = try await anonymous.get("/api/links/\(secret)")
        #expect(info.status == 200)
        #expect(try info.json()["user"] as? String == invitee)
        #expect(try info.json()["kind"] as? String == "invite")
        await #expect(try anonymous.post("/api/links/\(secret)", ["password": "short"]).status == 400)

        let used = try await anonymous.post(
            "/api/links/\(secret)", ["password": "welcome aboard", "name": "Nell \(invitee)"])
        #expect(used.status == 200)
        let browser = try browser(from: used, port: server.port)
        let me = try await browser.request("GET", "/api/me", csrf: false)
        #expect((try me.json()["user"] as? [String: Any])?["name"] as? String == "Nell \(invitee)")
        // Once only.
        await #expect(try anonymous.post("/api/links/\(secret)", ["password": "taken over"]).status == 404)
        await #expect(try anonymous.get("/api/links/\(secret)").status == 404)
        _ = try await signIn(server, invitee, "welcome aboard")

        // Guessed, malformed and expired links answer alike.
        await #expect(try anonymous.get("/api/links/\(LinkSecret.make())").status == 404)
        await #expect(try anonymous.get("/api/links/not-a-secret").status == 404)
        let expired = LinkSecret.make()
        let past = Timestamp(milliseconds: Timestamp.now.milliseconds - 1000)
        try await server.store.addLink(
            AccountLink(
                user: UserID(rawValue: invitee), kind: .reset, createdBy: nil, createdAt: past, expiresAt: past),
            secretHash: LinkSecret.hash(expired))
        await #expect(try anonymous.post("/api/links/\(expired)", ["password": "too late now"]).status == 404)
    }

    @Test func onlyAdministratorsInviteOrReset() async throws {
        let server = try await server()
        let pat = try await user(server)
        let plain = try await server.client(pat).post("/api/invites", ["user": "someone-new"])
        #expect(plain.status == 403)
        await #expect(try server.store.user("someone-new") == nil)

        // The setup link's user is an administrator by the store, whatever the token says.
        let setup = LinkSecret.make()
        let boss = UserID(rawValue: "boss-\(UUID().uuidString.prefix(6).lowercased())")
        _ = try await server.store.upsertUsers([.init(id: boss, name: "Boss \(boss.rawValue.suffix(6))")], by: nil)
        try await server.store.addLink(
            AccountLink(
                user: boss, kind: .setup, createdBy: nil, createdAt: .now,
                expiresAt: Timestamp(milliseconds: Timestamp.now.milliseconds + 60_000)),
            secretHash: LinkSecret.hash(setup))
        let used = try await HTTPClient(port: server.port).post("/api/links/\(setup)", ["password": "in charge now"])
        #expect(try used.json()["admin"] as? Bool == true)
        let bossBrowser = try browser(from: used, port: server.port)

        // A reset: the user's old password stops working once the link is used.
        let reset = try await bossBrowser.request(
            "POST", "/api/invites", json: ["user": pat.rawValue, "kind": "reset"])
        #expect(reset.status == 201)
        let secret = String(try #require(try reset.json()["path"] as? String).dropFirst("/#join=".count))
        await #expect(
            try HTTPClient(port: server.port).post("/api/links/\(secret)", ["password": "reset by boss"]).status == 200)
        await #expect(
            try HTTPClient(port: server.port).post("/api/session", ["user": pat.rawValue, "password": "correct horse"])
                .status == 401)
        // Resetting someone who does not exist is a 404, not a new account.
        await #expect(
            try bossBrowser.request("POST", "/api/invites", json: ["user": "ghost-\(boss)", "kind": "reset"]).status
                == 404)
    }

    @Test func aWebSocketRidesTheCookieSessionFromThisOriginOnly() async throws {
        let server = try await server()
        let pat = try await user(server)
        let browser = try await signIn(server, pat.rawValue, "correct horse")
        let socket = try await WebSocketClient(
            port: server.port, path: "/api/connect",
            headers: ["Cookie": browser.cookie, "Origin": "http://127.0.0.1:\(server.port)"])
        try await socket.send(json: ["type": "auth", "token": NSNull()])
        let hello = try #require(try await socket.receiveJSON())
        #expect(hello["type"] as? String == "hello")
        #expect(hello["user_id"] as? String == pat.rawValue)

        let foreign = try await WebSocketClient(
            port: server.port, path: "/api/connect",
            headers: ["Cookie": browser.cookie, "Origin": "http://evil.example"])
        #expect(foreign.refusal?.status == 403)
    }
}
