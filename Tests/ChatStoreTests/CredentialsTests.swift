import ChatStore
import Foundation
import Testing

/// Passwords and one-time links as the store keeps them.
@Suite struct CredentialsTests {
    let now = Timestamp(milliseconds: 1_800_000_000_000)

    func link(_ user: UserID, _ kind: AccountLink.Kind, expiresIn seconds: Int64 = 3600) -> AccountLink {
        AccountLink(
            user: user, kind: kind, createdBy: "alice", createdAt: now,
            expiresAt: Timestamp(milliseconds: now.milliseconds + seconds * 1000))
    }

    @Test func aLinkSetsThePasswordOnceBeforeItExpires() async throws {
        let temporary = try await TemporaryStore()
        _ = try await temporary.seeded()
        let store = temporary.store
        #expect(try await store.credentials(login: "BOB")?.passwordHash == nil)
        try await store.addLink(link("bob", .invite), secretHash: "h1")
        #expect(try await store.link(secretHash: "h1", now: now)?.user == "bob")
        let used = try await store.redeemLink(secretHash: "h1", passwordHash: "$argon2id$x", now: now)
        #expect(used.kind == .invite)
        let credentials = try #require(try await store.credentials(login: "Bob"))
        #expect(credentials.user == "bob")
        #expect(credentials.passwordHash == "$argon2id$x")
        #expect(!credentials.isAdmin)
        // Used: gone, for showing and for using.
        #expect(try await store.link(secretHash: "h1", now: now) == nil)
        await #expect(throws: ChatStoreError.self) {
            try await store.redeemLink(secretHash: "h1", passwordHash: "$argon2id$y", now: now)
        }
        #expect(try await store.credentials(login: "bob")?.passwordHash == "$argon2id$x")
        // Expired.
        try await store.addLink(link("carol", .invite, expiresIn: 60), secretHash: "h2")
        let later = Timestamp(milliseconds: now.milliseconds + 61_000)
        #expect(try await store.link(secretHash: "h2", now: later) == nil)
        await #expect(throws: ChatStoreError.self) {
            try await store.redeemLink(secretHash: "h2", passwordHash: "$argon2id$z", now: later)
        }
        #expect(try await store.credentials(login: "carol")?.passwordHash == nil)
    }

    @Test func aSetupLinkMakesAnAdministratorAndANewLinkReplacesTheOld() async throws {
        let temporary = try await TemporaryStore()
        _ = try await temporary.seeded()
        let store = temporary.store
        #expect(try await !store.hasAdministrator())
        try await store.addLink(link("alice", .setup), secretHash: "old")
        try await store.addLink(link("alice", .setup), secretHash: "new")
        #expect(try await store.link(secretHash: "old", now: now) == nil)
        _ = try await store.redeemLink(secretHash: "new", passwordHash: "$argon2id$a", now: now)
        #expect(try await store.hasAdministrator())
        #expect(try await store.credentials(login: "alice")?.isAdmin == true)
        await #expect(throws: ChatStoreError.self) { try await store.addLink(link("nobody", .invite), secretHash: "n") }
    }

    @Test func aChangedPasswordSignsOutEverywhere() async throws {
        let temporary = try await TemporaryStore()
        _ = try await temporary.seeded()
        let store = temporary.store
        let before = try await store.access(of: "bob").tokenGeneration
        try await store.setPasswordHash("$argon2id$1", for: "bob", signOutEverywhere: false)
        #expect(try await store.access(of: "bob").tokenGeneration == before)
        try await store.setPasswordHash("$argon2id$2", for: "bob", signOutEverywhere: true)
        #expect(try await store.access(of: "bob").tokenGeneration == before + 1)
        #expect(try await store.credentials(login: "bob")?.passwordHash == "$argon2id$2")
        try await store.setDisabled(true, for: "bob")
        #expect(try await store.credentials(login: "bob")?.isDisabled == true)
        await #expect(throws: ChatStoreError.self) {
            try await store.setPasswordHash("$argon2id$3", for: "nobody", signOutEverywhere: false)
        }
    }

    @Test func takingAdministrationAwayEndsTheSessionsThatCarryIt() async throws {
        let temporary = try await TemporaryStore()
        _ = try await temporary.seeded()
        let store = temporary.store
        let before = try await store.access(of: "carol").tokenGeneration
        try await store.setAdmin(true, for: "carol")
        #expect(try await store.isAdministrator("carol"))
        #expect(try await store.access(of: "carol").tokenGeneration == before)  // made one: nothing ends
        try await store.setAdmin(false, for: "carol")
        #expect(try await !store.isAdministrator("carol"))
        #expect(try await store.access(of: "carol").tokenGeneration == before + 1)
        try await store.setAdmin(false, for: "carol")  // not one: nothing more ends
        #expect(try await store.access(of: "carol").tokenGeneration == before + 1)
    }
}
