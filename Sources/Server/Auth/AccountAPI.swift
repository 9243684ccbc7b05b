import ChatStore
import Foundation
import HTTPCore
import ServerKit
import Synchronization

/// Signing in with a password, the browser's cookie session, and one-time links: the routes
/// under `/api/session`, `/api/me/password`, `/api/links/{secret}` and `/api/invites`.
///
/// A sign-in sets the session cookie (``SessionCookie``) and answers with the session's CSRF
/// token; bearer tokens from `sotto token` keep working beside it for scripts and API clients.
/// Passwords are hashed and checked by ``PasswordHasher`` (argon2id), failed sign-ins slowed and
/// refused by ``SignInThrottle``; a password is never logged or returned.
final class AccountAPI: Sendable {
    let store: ChatStore
    let tokens: TokenAuthority
    let hasher: PasswordHasher
    /// Called after a change of who may use which token, so this server refuses the old ones at
    /// once rather than at the access monitor's next tick.
    let accessChanged: @Sendable () async -> Void
    private let throttle = Mutex(SignInThrottle())

    /// How long an invitation or reset link works unless the request says otherwise.
    static let defaultLinkHours = 72
    static let maxLinkHours = 24 * 30

    init(
        store: ChatStore, tokens: TokenAuthority, hasher: PasswordHasher,
        accessChanged: @escaping @Sendable () async -> Void
    ) {
        self.store = store
        self.tokens = tokens
        self.hasher = hasher
        self.accessChanged = accessChanged
    }

    func add(to routes: inout RouteList) {
        let ref = APIOperation.ref
        routes.add(
            "POST", "/api/session", authenticated: false,
            APIOperation(
                id: "signIn",
                summary:
                    "Sign in with a user id and password (or exchange a bearer token): sets the HttpOnly, SameSite=Strict session cookie and answers with its CSRF token, which requests other than GET must send in X-CSRF-Token. Failed attempts are slowed, then refused, per account and per address (429 with Retry-After).",
                body: ##"""
                    {"type": "object", "properties": {
                      "user": {"type": "string", "maxLength": 64},
                      "password": {"type": "string", "maxLength": 1024},
                      "token": {"type": "string", "description": "A token from sotto token, instead of user and password."}}}
                    """##,
                answers: [.init(200, "Signed in.", ref("Session"))], errors: [401, 429, 503])
        ) { [self] context in try await signIn(context.request) }
        routes.add(
            "GET", "/api/session",
            APIOperation(
                id: "session", summary: "The session this request is signed in with, and its CSRF token.",
                answers: [.init(200, "The session.", ref("Session"))])
        ) { [self] context in
            try await sessionResponse(for: context.claims!, cookie: nil, request: context.request)
        }
        routes.add(
            "POST", "/api/session/refresh",
            APIOperation(
                id: "refreshSession",
                summary:
                    "A fresh session cookie for the same sign-in (a session can be refreshed for up to 30 days from sign-in).",
                answers: [.init(200, "The refreshed session.", ref("Session"))], errors: [403])
        ) { [self] context in
            let claims = context.claims!
            guard claims.expiresAt != nil,
                let token = tokens.refreshed(claims, maxSession: SessionCookie.maxSession)
            else { throw ChatStoreError.forbidden(reason: "this session cannot be refreshed: sign in again") }
            return try await sessionResponse(for: try tokens.verify(token), cookie: token, request: context.request)
        }
        routes.add(
            "DELETE", "/api/session", authenticated: false,
            APIOperation(
                id: "signOut", summary: "Sign this browser out: the session cookie is removed.",
                answers: [.init(204, "Signed out.")])
        ) { context in
            HTTPResponse(status: 204).adding(
                "Set-Cookie", SessionCookie.clearing(secure: SessionCookie.isSecure(context.request)))
        }
        routes.add(
            "POST", "/api/session/everywhere",
            APIOperation(
                id: "signOutEverywhere",
                summary: "Sign out everywhere: every session and token of this user stops working, this one included.",
                answers: [.init(204, "Signed out everywhere.")])
        ) { [self] context in
            try await store.revokeTokens(of: context.authenticatedUser)
            await accessChanged()
            return HTTPResponse(status: 204).adding(
                "Set-Cookie", SessionCookie.clearing(secure: SessionCookie.isSecure(context.request)))
        }
        routes.add(
            "PUT", "/api/me/password",
            APIOperation(
                id: "changePassword",
                summary:
                    "Change your password (the current one is needed if you have one). Every other session and token of yours stops working; this browser gets a new session.",
                body: ##"""
                    {"type": "object", "required": ["new_password"], "properties": {
                      "current_password": {"type": "string", "maxLength": 1024},
                      "new_password": {"type": "string", "minLength": 8, "maxLength": 1024}}}
                    """##,
                answers: [.init(200, "The new session.", ref("Session"))], errors: [403, 429, 503])
        ) { [self] context in try await changePassword(context) }
        routes.add(
            "GET", "/api/links/{secret}", authenticated: false,
            APIOperation(
                id: "link", summary: "Whom a setup, invitation or reset link is for, while it is unused and unexpired.",
                answers: [.init(200, "The link.", ref("AccountLink"))], errors: [404])
        ) { [self] context in
            let link = try await liveLink(context.parameter("secret"))
            let user = try await store.user(link.user)
            return JSONBody.response(
                LinkResponse(
                    user: link.user, name: user?.name ?? link.user.rawValue, kind: link.kind.rawValue,
                    expires_at: link.expiresAt))
        }
        routes.add(
            "POST", "/api/links/{secret}", authenticated: false,
            APIOperation(
                id: "useLink",
                summary:
                    "Use a one-time link: set your password (and, optionally, your display name) and be signed in. The link stops working.",
                body: ##"""
                    {"type": "object", "required": ["password"], "properties": {
                      "password": {"type": "string", "minLength": 8, "maxLength": 1024},
                      "name": {"$ref": "#/components/schemas/Name"}}}
                    """##,
                answers: [.init(200, "Signed in.", ref("Session"))], errors: [404, 409, 503])
        ) { [self] context in try await useLink(context) }
        routes.add(
            "POST", "/api/invites",
            APIOperation(
                id: "invite",
                summary:
                    "Administrators: a one-time link for a person to set their password — an invitation (the user is created if needed) or a reset of an existing user's password. Earlier unused links of the same kind for that user stop working.",
                body: ##"""
                    {"type": "object", "required": ["user"], "properties": {
                      "user": {"$ref": "#/components/schemas/UserID"},
                      "name": {"$ref": "#/components/schemas/Name"},
                      "kind": {"type": "string", "enum": ["invite", "reset"]},
                      "expires_in_hours": {"type": "integer", "minimum": 1, "maximum": 720}}}
                    """##,
                answers: [.init(201, "The link; its secret is shown this once.", ref("Invite"))],
                errors: [403, 404, 409])
        ) { [self] context in try await invite(context) }
    }

    // MARK: Signing in

    private func signIn(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Self.checkOrigin(request)
        let body = try JSONBody.decode(SignInRequest.self, from: request)
        if let token = body.token {
            let claims = try tokens.verify(token)
            try await store.ensureUserExists(claims.user)
            // A session lives no longer than the token it was exchanged for.
            let left = claims.expiresAt.map { $0 - Int64(Date().timeIntervalSince1970) } ?? SessionCookie.lifetime
            return try await startSession(
                for: claims.user, admin: claims.isAdmin, lifetime: min(SessionCookie.lifetime, max(1, left)),
                request: request)
        }
        guard let login = body.user, let password = body.password else {
            throw APIError.badRequest("send \"user\" and \"password\", or a \"token\"")
        }
        guard login.utf8.count <= 64, password.utf8.count <= PasswordHasher.maxLength else {
            throw Self.signInFailed
        }
        let address = request.remoteAddress
        if case .wait(let seconds) = throttle.withLock({ $0.check(account: login, address: address, now: Date()) }) {
            throw APIError(
                status: 429, code: "sign_in_throttled",
                message: "too many failed sign-ins; try again in \(seconds) s", retryAfter: seconds)
        }
        let credentials = try await store.credentials(login: login)
        let matches: Bool
        do {
            if let credentials, let stored = credentials.passwordHash {
                matches = try await hasher.verify(password, against: stored)
            } else {
                try await hasher.verifyNobody(password)
                matches = false
            }
        } catch is PasswordHasher.Busy {
            throw Self.busy
        }
        guard matches, let credentials, let stored = credentials.passwordHash else {
            throttle.withLock { $0.failed(account: login, address: address, now: Date()) }
            throw Self.signInFailed
        }
        throttle.withLock { $0.succeeded(account: login) }
        if credentials.isDisabled { throw AuthError.userDisabled }
        if hasher.needsRehash(stored), let rehashed = try? await hasher.hash(password) {
            try? await store.setPasswordHash(rehashed, for: credentials.user, signOutEverywhere: false)
        }
        return try await startSession(for: credentials.user, admin: credentials.isAdmin, request: request)
    }

    /// A new session for `user`: the cookie set, the session described.
    private func startSession(
        for user: UserID, admin: Bool, lifetime: Int64 = SessionCookie.lifetime, request: HTTPRequest
    ) async throws -> HTTPResponse {
        let generation = try await store.access(of: user).tokenGeneration
        let token = tokens.token(for: user, lifetime: lifetime, admin: admin, generation: generation)
        return try await sessionResponse(for: try tokens.verify(token), cookie: token, request: request)
    }

    private func sessionResponse(for claims: TokenClaims, cookie: String?, request: HTTPRequest) async throws
        -> HTTPResponse
    {
        let user = try await store.ensureUser(claims.user)
        let admin = try await store.isAdministrator(claims)
        let response = JSONBody.response(
            SessionResponse(
                user: user, csrf_token: tokens.csrfToken(for: claims), expires_at: claims.expiresAt, admin: admin))
        guard let cookie else { return response }
        // The cookie lives as long as the token it holds was issued for: read from the token, not
        // from a clock that may have ticked past a second since it was minted.
        let maxAge = (claims.expiresAt ?? claims.issuedAt + SessionCookie.lifetime) - claims.issuedAt
        return response.adding(
            "Set-Cookie", SessionCookie.setting(cookie, maxAge: maxAge, secure: SessionCookie.isSecure(request)))
    }

    private func changePassword(_ context: RequestContext) async throws -> HTTPResponse {
        let body = try JSONBody.decode(ChangePasswordRequest.self, from: context.request)
        let user = context.authenticatedUser
        try Self.checkNewPassword(body.new_password)
        let address = context.request.remoteAddress
        do {
            if let stored = try await store.credentials(login: user.rawValue)?.passwordHash {
                if case .wait(let seconds) = throttle.withLock({
                    $0.check(account: user.rawValue, address: address, now: Date())
                }) {
                    throw APIError(
                        status: 429, code: "sign_in_throttled",
                        message: "too many wrong passwords; try again in \(seconds) s", retryAfter: seconds)
                }
                guard let current = body.current_password, current.utf8.count <= PasswordHasher.maxLength,
                    try await hasher.verify(current, against: stored)
                else {
                    throttle.withLock { $0.failed(account: user.rawValue, address: address, now: Date()) }
                    throw ChatStoreError.forbidden(reason: "the current password is not right")
                }
            }
            let hash = try await hasher.hash(body.new_password)
            try await store.setPasswordHash(hash, for: user, signOutEverywhere: true)
        } catch is PasswordHasher.Busy {
            throw Self.busy
        }
        await accessChanged()
        let admin = try await store.isAdministrator(context.claims!)
        return try await startSession(for: user, admin: admin, request: context.request)
    }

    // MARK: Links

    private func liveLink(_ secret: String) async throws -> AccountLink {
        guard LinkSecret.isWellFormed(secret),
            let link = try await store.link(secretHash: LinkSecret.hash(secret), now: .now)
        else { throw Self.noLink }
        return link
    }

    private func useLink(_ context: RequestContext) async throws -> HTTPResponse {
        try Self.checkOrigin(context.request)
        let body = try JSONBody.decode(UseLinkRequest.self, from: context.request)
        try Self.checkNewPassword(body.password)
        let secret = context.parameter("secret")
        let link = try await liveLink(secret)
        if let name = body.name {
            _ = try await store.upsertUsers([UserUpdate(id: link.user, name: name)], by: link.user)
        }
        let hash: String
        do {
            hash = try await hasher.hash(body.password)
        } catch is PasswordHasher.Busy {
            throw Self.busy
        }
        let used: AccountLink
        do {
            used = try await store.redeemLink(secretHash: LinkSecret.hash(secret), passwordHash: hash, now: .now)
        } catch ChatStoreError.notFound {
            throw Self.noLink
        }
        await accessChanged()
        let admin = try await store.isAdministrator(used.user)
        return try await startSession(for: used.user, admin: admin, request: context.request)
    }

    private func invite(_ context: RequestContext) async throws -> HTTPResponse {
        guard try await store.isAdministrator(context.claims!) else {
            throw ChatStoreError.forbidden(reason: "only administrators invite people or reset passwords")
        }
        let body = try JSONBody.decode(InviteRequest.self, from: context.request)
        let user = try UserID.validated(body.user)
        let kind: AccountLink.Kind
        switch body.kind ?? "invite" {
        case "invite": kind = .invite
        case "reset": kind = .reset
        default: throw APIError.badRequest("kind is \"invite\" or \"reset\"")
        }
        let hours = body.expires_in_hours ?? Self.defaultLinkHours
        guard (1...Self.maxLinkHours).contains(hours) else {
            throw APIError.badRequest("expires_in_hours is from 1 to \(Self.maxLinkHours)")
        }
        let existing = try await store.user(user)
        switch kind {
        case .reset where existing == nil:
            throw ChatStoreError.notFound(what: "user", id: user.rawValue)
        case .invite where existing == nil || body.name != nil:
            _ = try await store.upsertUsers([UserUpdate(id: user, name: body.name ?? user.rawValue)], by: nil)
        default: break
        }
        let link = try await OneTimeLink.make(
            for: user, kind: kind, by: context.authenticatedUser, lifetime: Int64(hours) * 3600, in: store)
        return JSONBody.response(
            InviteResponse(user: user, kind: kind.rawValue, path: link.path, expires_at: link.expiresAt), status: 201)
    }

    // MARK: Errors

    private static let signInFailed = APIError(
        status: 401, code: "sign_in_failed", message: "wrong user name or password")
    private static let busy = APIError(
        status: 503, code: "busy", message: "too many sign-ins at once; try again in a moment", retryAfter: 1)
    private static let noLink = APIError.notFound(
        "this link does not work: it was used already, has expired, or was never made; ask for a new one")

    /// A page elsewhere must not sign this browser in (to an account of its choosing).
    private static func checkOrigin(_ request: HTTPRequest) throws {
        try SessionCookie.checkOrigin(request, "a page on another origin cannot sign this browser in")
    }

    private static func checkNewPassword(_ password: String) throws {
        let length = password.count
        guard length >= PasswordHasher.minLength else {
            throw APIError.badRequest("a password has at least \(PasswordHasher.minLength) characters")
        }
        guard password.utf8.count <= PasswordHasher.maxLength else {
            throw APIError.badRequest("a password has at most \(PasswordHasher.maxLength) bytes")
        }
    }
}

/// A one-time link just made: the only time its secret is seen (the store keeps its hash).
public struct OneTimeLink: Sendable {
    /// The path and fragment to open on the server, `/#join=<secret>`: a browser does not send
    /// the fragment, so the secret stays out of request lines and logs.
    public var path: String
    public var expiresAt: Timestamp

    /// Makes a link for `user` that lets its holder set their password; earlier unused links of
    /// the same kind for the user stop working. A `.setup` link also makes its user an
    /// administrator when used.
    public static func make(
        for user: UserID, kind: AccountLink.Kind, by creator: UserID?, lifetime seconds: Int64, in store: ChatStore
    ) async throws -> OneTimeLink {
        let secret = LinkSecret.make()
        let now = Timestamp.now
        let expires = Timestamp(milliseconds: now.milliseconds + seconds * 1000)
        try await store.addLink(
            AccountLink(user: user, kind: kind, createdBy: creator, createdAt: now, expiresAt: expires),
            secretHash: LinkSecret.hash(secret))
        return OneTimeLink(path: "/#join=\(secret)", expiresAt: expires)
    }
}

struct SignInRequest: Decodable {
    var user: String?
    var password: String?
    var token: String?
}

struct ChangePasswordRequest: Decodable {
    var current_password: String?
    var new_password: String
}

struct UseLinkRequest: Decodable {
    var password: String
    var name: String?
}

struct InviteRequest: Decodable {
    var user: String
    var name: String?
    var kind: String?
    var expires_in_hours: Int?
}

/// The answer to a sign-in: who, the CSRF token the page keeps in memory, and until when.
struct SessionResponse: Encodable {
    var user: User
    var csrf_token: String
    /// Seconds since 1970; nil for a token that never expires.
    var expires_at: Int64?
    var admin: Bool
}

struct LinkResponse: Encodable {
    var user: UserID
    var name: String
    var kind: String
    var expires_at: Timestamp
}

struct InviteResponse: Encodable {
    var user: UserID
    var kind: String
    /// ``OneTimeLink/path``.
    var path: String
    var expires_at: Timestamp
}

extension ChatStore {
    /// Whether the holder of `claims` is an administrator: by the token's claim (`sotto token
    /// --admin`) or by the store (the setup link's user, `sotto user admin`). Every route that
    /// lets administrators do more asks this.
    func isAdministrator(_ claims: TokenClaims) async throws -> Bool {
        if claims.isAdmin { return true }
        return try await isAdministrator(claims.user)
    }
}
