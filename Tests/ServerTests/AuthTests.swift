import ChatStore
import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import Server
@testable import ServerKit

@Suite struct TokenTests {
    let authority = TokenAuthority(secret: "a-secret-long-enough-for-tests")

    @Test(.onTestThreads) func tokensRoundTrip() throws {
        let token = authority.token(for: "alice", lifetime: 3600)
        let claims = try authority.verify(token)
        #expect(claims.user == "alice")
        #expect(claims.expiresAt == claims.issuedAt + 3600)
        #expect(try authority.verify(authority.token(for: "bob")).expiresAt == nil)
    }

    @Test(.onTestThreads) func tokensMatchStandardHS256() throws {
        // Computed with Python: hmac.new(b"a-secret-long-enough-for-tests", signing_input, sha256).
        let header = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
        let payload = Base64URL.encode(Array(#"{"user_id":"alice","iat":1700000000}"#.utf8))
        let token = authority.token(for: "alice", now: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(token.hasPrefix(header + "." + payload + "."))
        #expect(token.split(separator: ".")[2] == "kP7hk5xgGoxXHoO4i5NVjwPQgMgZeId0GXE9LOIklf4")
    }

    @Test(.onTestThreads) func expiredForgedAndTamperedTokensAreRefused() throws {
        let expired = authority.token(for: "alice", lifetime: 60, now: Date().addingTimeInterval(-120))
        #expect(throws: AuthError.expired) { try authority.verify(expired) }
        let forged = TokenAuthority(secret: "another-secret-entirely!!").token(for: "alice")
        #expect(throws: AuthError.badSignature) { try authority.verify(forged) }
        let parts = authority.token(for: "alice").split(separator: ".")
        let tampered = parts[0] + "." + Base64URL.encode(Array(#"{"user_id":"admin","iat":1}"#.utf8)) + "." + parts[2]
        #expect(throws: AuthError.badSignature) { try authority.verify(String(tampered)) }
        let future = authority.token(for: "alice", now: Date().addingTimeInterval(3600))
        #expect(throws: AuthError.notYetValid) { try authority.verify(future) }
    }

    /// A token's claims are decoded once and remembered by signature: the times are still
    /// checked on every use, and a payload changed under a remembered signature is still refused.
    @Test(.onTestThreads) func aTokenSeenBeforeIsCheckedAgainstTheClockEachTime() throws {
        let issued = Date()
        let token = authority.token(for: "alice", lifetime: 60, now: issued)
        #expect(try authority.verify(token, now: issued).user == "alice")
        #expect(try authority.verify(token, now: issued.addingTimeInterval(30)).user == "alice")
        #expect(throws: AuthError.expired) { try authority.verify(token, now: issued.addingTimeInterval(61)) }
        #expect(throws: AuthError.notYetValid) { try authority.verify(token, now: issued.addingTimeInterval(-3600)) }
        let parts = token.split(separator: ".")
        let tampered = parts[0] + "." + Base64URL.encode(Array(#"{"user_id":"admin","iat":1}"#.utf8)) + "." + parts[2]
        #expect(throws: AuthError.badSignature) { try authority.verify(String(tampered), now: issued) }
        // Without `iat`, a token is issued when it is checked, remembered or not.
        let input = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + Base64URL.encode(Array(#"{"user_id":"bob"}"#.utf8))
        let undated =
            input + "." + HMACForTests.sign(Array(input.utf8), key: Array("a-secret-long-enough-for-tests".utf8))
        for seconds in [1_700_000_000.0, 1_800_000_000] {
            #expect(try authority.verify(undated, now: Date(timeIntervalSince1970: seconds)).issuedAt == Int64(seconds))
        }
    }

    @Test(
        .onTestThreads,
        arguments: [
            "", "abc", "a.b", "a.b.c.d", "!!!.e30.AAAA",
            Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Array(#"{"user_id":"a"}"#.utf8))
                + ".",
        ])
    func malformedTokensAreRefused(token: String) {
        #expect(throws: AuthError.self) { try authority.verify(token) }
    }

    @Test(.onTestThreads) func badClaimsAreRefusedEvenWhenSigned() throws {
        for payload in [#"{"iat":1}"#, #"{"user_id":"has space"}"#, #"{"user_id":"a","exp":"soon"}"#, #"[1,2]"#] {
            let input = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + Base64URL.encode(Array(payload.utf8))
            let signed =
                input + "." + HMACForTests.sign(Array(input.utf8), key: Array("a-secret-long-enough-for-tests".utf8))
            #expect(throws: AuthError.self) { try authority.verify(signed) }
        }
    }

    @Test(.onTestThreads) func base64URLRoundTripsAndRejectsNonCanonicalText() {
        for length in 0..<40 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.decode("A") == nil)
        #expect(Base64URL.decode("AA") == [0])
        #expect(Base64URL.decode("AB") == nil)  // trailing bits set
        #expect(Base64URL.decode("AF") == nil)  // trailing bits set
        #expect(Base64URL.decode("a+b/") == nil)
    }
}

@Suite struct AppSecretTests {
    @Test(.onTestThreads) func secretIsCreatedOwnerOnlyAndReused() throws {
        let home = try TestFolders.make("secret") + "/home"
        let first = try AppSecret.load(home: home, environment: [:])
        #expect(first.count == 64)
        let mode = try FileManager.default.attributesOfItem(atPath: home + "/secret")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try AppSecret.load(home: home, environment: [:]) == first)
        #expect(
            try AppSecret.load(home: home, environment: ["SOTTO_SECRET": "from-the-environment"])
                == "from-the-environment")
        #expect(throws: HTTPServerError.self) { try AppSecret.load(home: home, environment: ["SOTTO_SECRET": "short"]) }
    }
}
