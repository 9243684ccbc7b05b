import Foundation
import TestSupport
import Testing

/// `sotto token` lives 30 days unless told otherwise and can be revoked; `sotto user disable`
/// and `enable` (issue 27). The store they change is what a running server polls.
@Suite("sotto token and sotto user", .serialized)
struct AccountCommandTests {
    static func claims(of token: String) throws -> [String: Any] {
        let parts = token.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")
        var payload = String(try #require(parts.dropFirst().first))
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while payload.count % 4 != 0 { payload += "=" }
        let data = try #require(Data(base64Encoded: payload))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test(.onTestThreads) func tokensExpireIn30DaysUnlessToldOtherwise() throws {
        let home = try TemporaryHome()
        let secret = ["SOTTO_SECRET": "cli-secret-0123456789abcdef0123"]
        let plain = try Self.claims(of: try SottoBinary.run(["token", "alice"], home: home.url, extra: secret).stdout)
        let lifetime = (plain["exp"] as? Int ?? 0) - (plain["iat"] as? Int ?? 0)
        #expect(lifetime == 30 * 86_400)
        let never = try Self.claims(
            of: try SottoBinary.run(["token", "alice", "--expires-in", "never"], home: home.url, extra: secret).stdout)
        #expect(never["exp"] == nil)
    }

    @Test(.onTestThreads) func revokingRaisesTheGenerationNewTokensCarry() throws {
        let home = try TemporaryHome()
        let secret = ["SOTTO_SECRET": "cli-secret-0123456789abcdef0123"]
        #expect(
            try Self.claims(of: try SottoBinary.run(["token", "bob"], home: home.url, extra: secret).stdout)["gen"]
                == nil)
        let revoked = try SottoBinary.run(["token", "revoke", "bob"], home: home.url, extra: secret)
        #expect(revoked.status == 0)
        #expect(revoked.stdout.contains("Revoked every token of bob"))
        let after = try Self.claims(of: try SottoBinary.run(["token", "bob"], home: home.url, extra: secret).stdout)
        #expect(after["gen"] as? Int == 1)
    }

    @Test(.onTestThreads) func aDisabledUserGetsNoTokenUntilEnabled() throws {
        let home = try TemporaryHome()
        let secret = ["SOTTO_SECRET": "cli-secret-0123456789abcdef0123"]
        #expect(try SottoBinary.run(["user", "add", "carol", "Carol"], home: home.url).status == 0)
        #expect(try SottoBinary.run(["user", "disable", "carol"], home: home.url).status == 0)
        #expect(try SottoBinary.run(["user", "list"], home: home.url).stdout.contains("carol\tCarol\tdisabled"))
        let refused = try SottoBinary.run(["token", "carol"], home: home.url, extra: secret)
        #expect(refused.status != 0 && refused.stderr.contains("disabled"))
        #expect(try SottoBinary.run(["user", "enable", "carol"], home: home.url).status == 0)
        #expect(try SottoBinary.run(["token", "carol"], home: home.url, extra: secret).status == 0)
        #expect(try SottoBinary.run(["user", "disable", "nobody"], home: home.url).status != 0)
    }

    @Test(.onTestThreads) func aLookalikeNameIsRefusedWithItsReason() throws {
        let home = try TemporaryHome()
        #expect(try SottoBinary.run(["user", "add", "alice", "Alice"], home: home.url).status == 0)
        let lookalike = try SottoBinary.run(["user", "add", "mallory", "\u{0410}lice"], home: home.url)
        #expect(lookalike.status != 0)
        #expect(lookalike.stderr.contains("mixes"), "\(lookalike.stderr)")
    }

    @Test(.onTestThreads) func anInvitationIsAOneTimeLinkForANewOrExistingUser() throws {
        let home = try TemporaryHome()
        let invite = try SottoBinary.run(
            ["user", "invite", "dana", "--name", "Dana", "--url", "https://chat.example/"], home: home.url)
        #expect(invite.status == 0, "\(invite.stderr)")
        let link = try #require(invite.stdout.split(separator: "\n").first.map(String.init))
        #expect(link.hasPrefix("https://chat.example/#join="))
        #expect(link.count == "https://chat.example/#join=".count + 43)
        #expect(invite.stdout.contains("works once, until"))
        #expect(try SottoBinary.run(["user", "list"], home: home.url).stdout.contains("dana\tDana"))

        let reset = try SottoBinary.run(["user", "invite", "dana", "--reset", "--expires-in", "1h"], home: home.url)
        #expect(reset.stdout.hasPrefix("http://127.0.0.1:8080/#join="))
        #expect(try SottoBinary.run(["user", "invite", "ghost", "--reset"], home: home.url).status != 0)
        #expect(try SottoBinary.run(["user", "admin", "dana"], home: home.url).stdout.contains("now an administrator"))
        #expect(try SottoBinary.run(["user", "admin", "ghost"], home: home.url).status != 0)
    }
}
