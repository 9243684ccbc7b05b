import CSodium
import ChatStore
import Foundation
import JSONSyntax
import Synchronization

/// What a valid token says.
public struct TokenClaims: Hashable, Sendable {
    public var user: UserID
    /// Issued at, seconds since 1970.
    public var issuedAt: Int64
    /// Expires at, seconds since 1970; nil means never.
    public var expiresAt: Int64?
    /// The `admin` claim: the bearer may create users.
    public var isAdmin: Bool
    /// When the user first signed in (`auth_time`): refreshed tokens keep it, so a session
    /// cannot be stretched forever.
    public var authTime: Int64
    /// The user's token generation when it was minted (`gen`, 0 when absent): a token older than
    /// the user's current generation is revoked.
    public var generation: Int64

    public init(
        user: UserID, issuedAt: Int64, expiresAt: Int64?, isAdmin: Bool = false, authTime: Int64? = nil,
        generation: Int64 = 0
    ) {
        self.user = user
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.isAdmin = isAdmin
        self.authTime = authTime ?? issuedAt
        self.generation = generation
    }
}

/// Why a token was refused. Each maps to 401 with its `code`, but a broken CSRF rule to 403.
public enum AuthError: Error, Equatable, Sendable, CustomStringConvertible {
    case missing
    case malformed(String)
    case badSignature
    case expired
    case notYetValid
    /// Minted before `sotto token revoke` revoked the user's tokens.
    case revoked
    /// The user is disabled (`sotto user disable`).
    case userDisabled
    /// A request on a browser's cookie session broke the CSRF rule (``SessionCookie``): 403.
    case csrfRejected(String)

    /// A stable machine-readable code.
    public var code: String {
        switch self {
        case .missing: "token_missing"
        case .malformed: "token_malformed"
        case .badSignature: "token_signature_invalid"
        case .expired: "token_expired"
        case .notYetValid: "token_not_yet_valid"
        case .revoked: "token_revoked"
        case .userDisabled: "user_disabled"
        case .csrfRejected: "csrf_rejected"
        }
    }

    public var description: String {
        switch self {
        case .missing: "not signed in: sign in, or send 'Authorization: Bearer <token>'"
        case .malformed(let reason): "malformed token: \(reason)"
        case .badSignature: "token signature does not match"
        case .expired: "token has expired"
        case .notYetValid: "token is issued in the future"
        case .revoked: "this token was revoked: ask for a new one"
        case .userDisabled: "this user is disabled on this server"
        case .csrfRejected(let reason): "refused: \(reason)"
        }
    }
}

/// Mints and checks HS256 JSON Web Tokens with the app secret, through libsodium's
/// HMAC-SHA-256 and constant-time comparison.
///
/// Tokens carry `user_id`, `iat` and optionally `exp`, `admin` (true: may create users),
/// `auth_time` (set on refreshed tokens) and `gen` (the user's token generation, when not 0); the
/// key is the secret's UTF-8 bytes, so any standard JWT library with the same secret can mint
/// compatible tokens.
///
/// Every check also asks ``access``, which the server keeps in step with the store: a token of
/// a disabled user, or of an older generation than the user's, is refused, even when its claims
/// come from the cache of verified tokens.
public struct TokenAuthority: Sendable {
    private let key: [UInt8]
    /// Claims already decoded, by signature: every request carries a token, and decoding its
    /// JSON cost more than the rest of checking it.
    private let verified = VerifiedTokens()
    /// Revoked generations and disabled users.
    public let access = AccessList()
    /// Tolerated clock skew for `iat` in the future, in seconds.
    public var allowedSkew: Int64 = 60

    public init(secret: String) {
        precondition(sodium_init() >= 0, "libsodium failed to initialise")
        key = Array(secret.utf8)
    }

    /// A signed token for `user`, valid from `now` for `lifetime` seconds (nil: no expiry);
    /// `admin` adds the claim that lets its bearer create users.
    public func token(
        for user: UserID, lifetime: Int64? = nil, admin: Bool = false, authTime: Int64? = nil, generation: Int64 = 0,
        now: Date = Date()
    ) -> String {
        let issuedAt = Int64(now.timeIntervalSince1970)
        var payload = "{\"user_id\":\(JSONStringLiteral.encode(user.rawValue)),\"iat\":\(issuedAt)"
        if let lifetime { payload += ",\"exp\":\(issuedAt + lifetime)" }
        if admin { payload += ",\"admin\":true" }
        if let authTime { payload += ",\"auth_time\":\(authTime)" }
        if generation != 0 { payload += ",\"gen\":\(generation)" }
        payload += "}"
        let signingInput =
            Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        return signingInput + "." + Base64URL.encode(mac(Array(signingInput.utf8)))
    }

    /// The claims of a valid token; throws `AuthError` for anything else.
    public func verify(_ token: String, now: Date = Date()) throws -> TokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw AuthError.malformed("expected three dot-separated parts") }
        if parts[0] != Self.standardHeader {
            guard let headerBytes = Base64URL.decode(parts[0]),
                let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any]
            else { throw AuthError.malformed("header is not base64url JSON") }
            guard header["alg"] as? String == "HS256" else { throw AuthError.malformed("only alg HS256 is accepted") }
        }
        guard let signature = Base64URL.decode(parts[2]), signature.count == Int(crypto_auth_hmacsha256_BYTES) else {
            throw AuthError.badSignature
        }
        let expected = mac(Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8))
        guard sodium_memcmp(signature, expected, expected.count) == 0 else { throw AuthError.badSignature }

        // The signature matched, so the header and payload are the ones it was made for: claims
        // decoded before for the same signature are these claims (HMAC-SHA-256 does not collide).
        // Only their times are checked again.
        let signed: SignedClaims
        if let known = verified.claims(signature: signature) {
            signed = known
        } else {
            signed = try decodeClaims(parts[1])
            verified.insert(signed, signature: signature)
        }
        let nowSeconds = Int64(now.timeIntervalSince1970)
        let issuedAt = signed.issuedAt ?? nowSeconds
        if let expiresAt = signed.expiresAt, expiresAt <= nowSeconds { throw AuthError.expired }
        if issuedAt > nowSeconds + allowedSkew { throw AuthError.notYetValid }
        let claims = TokenClaims(
            user: signed.user, issuedAt: issuedAt, expiresAt: signed.expiresAt, isAdmin: signed.isAdmin,
            authTime: signed.authTime, generation: signed.generation)
        if let refusal = access.refusal(for: claims) { throw refusal }
        return claims
    }

    /// `{"alg":"HS256","typ":"JWT"}`, the header this authority writes: no need to decode it.
    private static let standardHeader = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

    /// The claims of a signed payload.
    private func decodeClaims(_ encoded: Substring) throws -> SignedClaims {
        guard let payloadBytes = Base64URL.decode(encoded) else {
            throw AuthError.malformed("payload is not base64url")
        }
        let payload: Payload
        do {
            payload = try JSONDecoder().decode(Payload.self, from: Data(payloadBytes))
        } catch {
            throw AuthError.malformed("payload is not a JSON object with string user_id and numeric iat/exp")
        }
        guard let userText = payload.user_id, let user = try? UserID.validated(userText) else {
            throw AuthError.malformed("user_id missing or invalid")
        }
        return SignedClaims(
            user: user, issuedAt: try seconds(payload.iat, name: "iat"),
            expiresAt: try seconds(payload.exp, name: "exp"),
            isAdmin: payload.admin == true, authTime: try seconds(payload.auth_time, name: "auth_time"),
            generation: try seconds(payload.gen, name: "gen") ?? 0)
    }

    /// A new token for the same user and session with the same lifetime, or nil for a token
    /// that never expires (nothing to refresh) or a session older than `maxSession` seconds.
    public func refreshed(_ claims: TokenClaims, maxSession: Int64, now: Date = Date()) -> String? {
        guard let expiresAt = claims.expiresAt else { return nil }
        let nowSeconds = Int64(now.timeIntervalSince1970)
        guard nowSeconds - claims.authTime < maxSession else { return nil }
        let lifetime = max(1, expiresAt - claims.issuedAt)
        return token(
            for: claims.user, lifetime: min(lifetime, claims.authTime + maxSession - nowSeconds),
            admin: claims.isAdmin, authTime: claims.authTime, generation: claims.generation, now: now)
    }

    private struct Payload: Decodable {
        var user_id: String?
        var iat: Double?
        var exp: Double?
        var admin: Bool?
        var auth_time: Double?
        var gen: Double?
    }

    private func seconds(_ value: Double?, name: String) throws -> Int64? {
        guard let value else { return nil }
        guard value.isFinite, abs(value) < 1e15 else { throw AuthError.malformed("\(name) out of range") }
        return Int64(value)
    }

    func mac(_ message: [UInt8]) -> [UInt8] {
        var state = crypto_auth_hmacsha256_state()
        var output = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        crypto_auth_hmacsha256_init(&state, key, key.count)
        crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
        crypto_auth_hmacsha256_final(&state, &output)
        return output
    }
}

/// A token's payload as signed, before the times are checked against the clock.
private struct SignedClaims: Sendable {
    package var user: UserID
    package var issuedAt: Int64?
    package var expiresAt: Int64?
    package var isAdmin: Bool
    package var authTime: Int64?
    package var generation: Int64
}

/// The claims of tokens whose signature was checked, by signature; bounded (emptied when full).
private final class VerifiedTokens: Sendable {
    private let entries = Mutex<[[UInt8]: SignedClaims]>([:])
    private let capacity = 65_536

    package func claims(signature: [UInt8]) -> SignedClaims? {
        entries.withLock { $0[signature] }
    }

    package func insert(_ claims: SignedClaims, signature: [UInt8]) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll() }
            entries[signature] = claims
        }
    }
}
