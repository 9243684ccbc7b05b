import Foundation
import ServerKit
import TestSupport
import Testing

/// Passwords hashed and checked with argon2id, and failed sign-ins slowed then refused.
@Suite struct PasswordTests {
    @Test func aPasswordVerifiesAndNothingElseDoes() async throws {
        let hasher = PasswordHasher.forTests()
        let stored = try await hasher.hash("correct horse battery staple")
        #expect(stored.hasPrefix("$argon2id$v=19$"))
        #expect(!stored.contains("correct"))
        #expect(try await hasher.verify("correct horse battery staple", against: stored))
        #expect(try await !hasher.verify("correct horse battery stapl", against: stored))
        #expect(try await !hasher.verify("", against: stored))
        #expect(try await !hasher.verify("correct horse battery staple", against: "not a hash"))
        // Salted: the same password twice is stored differently, and both verify.
        let again = try await hasher.hash("correct horse battery staple")
        #expect(again != stored)
        #expect(try await hasher.verify("correct horse battery staple", against: again))
        try await hasher.verifyNobody("anything")
    }

    @Test func theStoredStringNamesItsParametersSoTheyCanChange() async throws {
        let weak = PasswordHasher.forTests()
        let stored = try await weak.hash("päss wörd ✓")
        let strong = PasswordHasher(opsLimit: 3, memLimit: 1 << 20)
        #expect(!weak.needsRehash(stored))
        #expect(strong.needsRehash(stored))
        #expect(try await strong.verify("päss wörd ✓", against: stored))
        #expect(weak.opsLimit >= 1)
        let interactive = PasswordHasher()
        #expect(interactive.memLimit == 64 << 20)
        #expect(interactive.opsLimit == 2)
    }

    @Test(.onTestThreads) func failuresAreSlowedThenRefusedPerAccount() {
        var throttle = SignInThrottle()
        let start = Date(timeIntervalSince1970: 1_000_000)
        for i in 0..<5 {
            #expect(throttle.check(account: "Ada", address: "a\(i)", now: start) == .allowed)
            throttle.failed(account: "ada", address: "a\(i)", now: start)
        }
        // Past five, each failure doubles the wait: 1 s after the fifth.
        #expect(throttle.check(account: "ADA", address: "b", now: start) == .wait(seconds: 1))
        #expect(throttle.check(account: "ada", address: "b", now: start.addingTimeInterval(1)) == .allowed)
        var now = start
        for _ in 5..<20 {
            now = now.addingTimeInterval(30)
            throttle.failed(account: "ada", address: "c\(now.timeIntervalSince1970)", now: now)
        }
        // Twenty within the window: refused until fifteen minutes after the last.
        #expect(throttle.check(account: "ada", address: "d", now: now) == .wait(seconds: 900))
        #expect(throttle.check(account: "bob", address: "d", now: now) == .allowed)
        // The window passes: allowed again.
        #expect(throttle.check(account: "ada", address: "d", now: now.addingTimeInterval(901)) == .allowed)
    }

    @Test(.onTestThreads) func anAddressTryingManyAccountsIsSlowedToo() {
        var throttle = SignInThrottle()
        let now = Date(timeIntervalSince1970: 1_000_000)
        for i in 0..<20 { throttle.failed(account: "user\(i)", address: "10.0.0.9", now: now) }
        #expect(throttle.check(account: "someone", address: "10.0.0.9", now: now) == .wait(seconds: 1))
        #expect(throttle.check(account: "someone", address: "10.0.0.10", now: now) == .allowed)
        for i in 20..<100 { throttle.failed(account: "user\(i)", address: "10.0.0.9", now: now) }
        #expect(throttle.check(account: "someone", address: "10.0.0.9", now: now) == .wait(seconds: 900))
    }

    @Test(.onTestThreads) func aSuccessForgetsTheAccountsFailures() {
        var throttle = SignInThrottle()
        let now = Date(timeIntervalSince1970: 1_000_000)
        for _ in 0..<6 { throttle.failed(account: "ada", address: "a", now: now) }
        #expect(throttle.check(account: "ada", address: "b", now: now) != .allowed)
        throttle.succeeded(account: "Ada")
        #expect(throttle.check(account: "ada", address: "b", now: now) == .allowed)
    }
}
