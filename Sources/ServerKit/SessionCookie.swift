import CSodium
import Foundation
import HTTPCore

/// The web app's session: the signed token in an `HttpOnly`, `SameSite=Strict` cookie that page
/// scripts cannot read, and the CSRF rule that comes with a cookie.
///
/// A browser sends the cookie with every request to this server, including ones a page elsewhere
/// makes it send; `SameSite=Strict` already keeps it off requests started by other sites, and two
/// checks keep it off the rest:
/// - a request that carries an `Origin` must come from this server's own origin;
/// - a request that may change something (any method but GET, HEAD and OPTIONS) must carry
///   `X-CSRF-Token`, a value derived from the session by the server's secret, which the page
///   receives in the sign-in answer and keeps in memory (another origin cannot read it); when
///   a GET carries one, it must match too.
///
/// Bearer tokens in `Authorization` are not affected: a browser never adds that header by itself.
public enum SessionCookie {
    public static let name = "sotto_session"
    public static let csrfHeader = "X-CSRF-Token"
    /// How long a signed-in browser stays signed in without a refresh.
    public static let lifetime: Int64 = 7 * 86_400
    /// How long a session may be refreshed before its user signs in again.
    public static let maxSession: Int64 = 30 * 86_400

    /// The session token in `request`'s `Cookie` header.
    public static func token(in request: HTTPRequest) -> String? {
        for header in request.headerValues("Cookie") {
            for pair in header.split(separator: ";") {
                let trimmed = pair.trimmingCharacters(in: .whitespaces)
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<equals] == name {
                    let value = String(trimmed[trimmed.index(after: equals)...])
                    return value.isEmpty ? nil : value
                }
            }
        }
        return nil
    }

    /// The `Set-Cookie` value that keeps `token` for `maxAge` seconds.
    public static func setting(_ token: String, maxAge: Int64, secure: Bool) -> String {
        "\(name)=\(token); Max-Age=\(max(0, maxAge)); Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that removes the session.
    public static func clearing(secure: Bool) -> String {
        "\(name)=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// Whether the browser reached the server over HTTPS (directly, or through a proxy that says
    /// so): the cookie is then marked `Secure`.
    public static func isSecure(_ request: HTTPRequest) -> Bool {
        request.header("X-Forwarded-Proto")?.lowercased() == "https"
    }

    /// Methods that change nothing, which need no CSRF token.
    public static func isSafe(_ method: String) -> Bool {
        method == "GET" || method == "HEAD" || method == "OPTIONS"
    }

    /// Whether `origin` is this server as the client reached it (`http(s)://` + Host).
    public static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, !host.isEmpty else { return false }
        let lower = origin.lowercased()
        let hostLower = host.lowercased()
        return lower == "http://" + hostLower || lower == "https://" + hostLower
    }

    /// Refuses a request whose `Origin` is another site's (a request without one is no browser's,
    /// or a same-origin GET).
    ///
    /// - Throws: ``AuthError/csrfRejected(_:)`` with `reason`.
    public static func checkOrigin(_ request: HTTPRequest, _ reason: String) throws {
        if let origin = request.header("Origin"), !isSameOrigin(origin, host: request.header("Host")) {
            throw AuthError.csrfRejected(reason)
        }
    }

    /// Checks the CSRF rule for a request authenticated by its cookie, whose session is `claims`.
    ///
    /// - Throws: ``AuthError/csrfRejected(_:)``.
    public static func checkCSRF(_ request: HTTPRequest, claims: TokenClaims, tokens: TokenAuthority) throws {
        try checkOrigin(request, "a request from another origin cannot use this browser's session")
        guard let sent = request.header(csrfHeader) else {
            if isSafe(request.method) { return }
            throw AuthError.csrfRejected("send the session's CSRF token in '\(csrfHeader)'")
        }
        // Checked whenever it is sent, GET too: a page whose cookie was replaced by another
        // sign-in (another window of the same browser) learns it at its next request.
        guard tokens.isCSRFToken(sent, for: claims) else {
            throw AuthError.csrfRejected("the '\(csrfHeader)' header does not match this browser's session")
        }
    }
}

extension TokenAuthority {
    /// The CSRF token of the session `claims` belong to: the same for every refreshed token of one
    /// sign-in (user and `auth_time`), so a request sent while the cookie is refreshed still passes.
    public func csrfToken(for claims: TokenClaims) -> String {
        Base64URL.encode(mac(Array("csrf\0\(claims.user.rawValue)\0\(claims.authTime)".utf8)))
    }

    /// Whether `sent` is the CSRF token of `claims`' session, compared in constant time.
    public func isCSRFToken(_ sent: String, for claims: TokenClaims) -> Bool {
        let expected = Array(csrfToken(for: claims).utf8)
        let given = Array(sent.utf8)
        guard given.count == expected.count else { return false }
        return sodium_memcmp(given, expected, expected.count) == 0
    }
}
