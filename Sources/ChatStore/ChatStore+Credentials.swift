import Foundation

/// A one-time link that lets its holder set a user's password: the first administrator's setup
/// link, an invitation, an administrator's reset.
public struct AccountLink: Hashable, Sendable {
    public enum Kind: String, Sendable {
        case setup, invite, reset
    }

    public var user: UserID
    public var kind: Kind
    public var createdBy: UserID?
    public var createdAt: Timestamp
    public var expiresAt: Timestamp

    public init(user: UserID, kind: Kind, createdBy: UserID?, createdAt: Timestamp, expiresAt: Timestamp) {
        self.user = user
        self.kind = kind
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// What a sign-in needs to know of a user.
public struct Credentials: Hashable, Sendable {
    public var user: UserID
    /// The argon2id string, nil for a user who has none (one who signs in with tokens only).
    public var passwordHash: String?
    public var isAdmin: Bool
    public var isDisabled: Bool
}

/// Passwords and one-time links. The store keeps what the server hashed: an argon2id string per
/// password, a SHA-256 per link secret; it never sees a password or a link's secret.
extension ChatStore {
    /// The credentials of the user whose id is `login`, compared without case (ids are chosen
    /// by people, who do not remember the case they chose).
    public func credentials(login: String) async throws -> Credentials? {
        try await read { db in
            try db.row(
                "SELECT id, password_hash, is_admin, disabled_at FROM users WHERE lower(id) = lower(?) ORDER BY id LIMIT 1",
                [.text(login)]
            ) {
                Credentials(
                    user: UserID(rawValue: $0.string(0)), passwordHash: $0.isNull(1) ? nil : $0.string(1),
                    isAdmin: $0.int64(2) != 0, isDisabled: !$0.isNull(3))
            }
        }
    }

    /// Sets `user`'s password (its argon2id string). With `signOutEverywhere`, every token and
    /// session the user holds stops working (a changed or reset password).
    ///
    /// - Throws: `notFound` for a user who does not exist.
    public func setPasswordHash(_ hash: String, for user: UserID, signOutEverywhere: Bool) async throws {
        try await write { db in
            guard try Self.user(user, db) != nil else { throw ChatStoreError.notFound(what: "user", id: user.rawValue) }
            try db.run("UPDATE users SET password_hash = ? WHERE id = ?", [.text(hash), .text(user.rawValue)])
            if signOutEverywhere {
                try db.run(
                    "UPDATE users SET token_generation = token_generation + 1 WHERE id = ?", [.text(user.rawValue)])
                try Self.accessChanged(db)
            }
        }
    }

    /// Makes `user` an administrator or not. Taking it away also ends their sessions and
    /// tokens (a session carries the administrator's claim it was signed in with), so it holds
    /// at once; they sign in again as a member.
    public func setAdmin(_ isAdmin: Bool, for user: UserID) async throws {
        try await write { db in
            guard try Self.user(user, db) != nil else { throw ChatStoreError.notFound(what: "user", id: user.rawValue) }
            let was = try db.row("SELECT is_admin FROM users WHERE id = ?", [.text(user.rawValue)]) { $0.int64(0) != 0 }
            try db.run("UPDATE users SET is_admin = ? WHERE id = ?", [.integer(isAdmin ? 1 : 0), .text(user.rawValue)])
            if was == true, !isAdmin {
                try db.run(
                    "UPDATE users SET token_generation = token_generation + 1 WHERE id = ?", [.text(user.rawValue)])
                try Self.accessChanged(db)
            }
        }
    }

    /// Whether any user is an administrator (none: the data directory is fresh, and the first
    /// run makes a setup link).
    public func hasAdministrator() async throws -> Bool {
        try await read { db in try db.row("SELECT 1 FROM users WHERE is_admin = 1 LIMIT 1") { _ in true } ?? false }
    }

    /// Keeps a link whose secret hashes to `secretHash`; earlier unused links of the same user
    /// and kind stop working (one live invitation per person).
    public func addLink(_ link: AccountLink, secretHash: String) async throws {
        try await write { db in
            guard try Self.user(link.user, db) != nil else {
                throw ChatStoreError.notFound(what: "user", id: link.user.rawValue)
            }
            try db.run(
                "DELETE FROM account_links WHERE user_id = ? AND kind = ? AND used_at IS NULL",
                [.text(link.user.rawValue), .text(link.kind.rawValue)])
            try db.run(
                """
                INSERT INTO account_links(secret_hash, user_id, kind, created_by, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(secretHash), .text(link.user.rawValue), .text(link.kind.rawValue),
                    link.createdBy.map { .text($0.rawValue) } ?? .null, .integer(link.createdAt.milliseconds),
                    .integer(link.expiresAt.milliseconds),
                ])
        }
    }

    /// The link whose secret hashes to `secretHash` if it is unused and unexpired at `now` (to
    /// show whom it is for before it is used).
    public func link(secretHash: String, now: Timestamp) async throws -> AccountLink? {
        try await read { db in try Self.liveLink(secretHash, now, db) }
    }

    /// Uses the link: sets its user's password and marks it used, in one write, so a link works
    /// once even when two requests bring it at the same moment. A setup link also makes its user
    /// an administrator.
    ///
    /// - Throws: `notFound` for a link that does not exist, was used, or has expired (one
    ///   answer for all three: the holder of a guessed secret learns nothing).
    public func redeemLink(secretHash: String, passwordHash: String, now: Timestamp) async throws -> AccountLink {
        try await write { db in
            guard let link = try Self.liveLink(secretHash, now, db) else {
                throw ChatStoreError.notFound(what: "link", id: "(this link)")
            }
            try db.run(
                "UPDATE account_links SET used_at = ? WHERE secret_hash = ?",
                [.integer(now.milliseconds), .text(secretHash)])
            try db.run(
                "UPDATE users SET password_hash = ?, is_admin = CASE WHEN ? = 1 THEN 1 ELSE is_admin END, token_generation = token_generation + 1 WHERE id = ?",
                [.text(passwordHash), .integer(link.kind == .setup ? 1 : 0), .text(link.user.rawValue)])
            try Self.accessChanged(db)
            return link
        }
    }

    private static func liveLink(_ secretHash: String, _ now: Timestamp, _ db: Connection) throws -> AccountLink? {
        try db.row(
            """
            SELECT user_id, kind, created_by, created_at, expires_at FROM account_links
            WHERE secret_hash = ? AND used_at IS NULL AND expires_at > ?
            """,
            [.text(secretHash), .integer(now.milliseconds)]
        ) { row in
            AccountLink(
                user: UserID(rawValue: row.string(0)), kind: AccountLink.Kind(rawValue: row.string(1)) ?? .invite,
                createdBy: row.isNull(2) ? nil : UserID(rawValue: row.string(2)),
                createdAt: Timestamp(milliseconds: row.int64(3)), expiresAt: Timestamp(milliseconds: row.int64(4)))
        }
    }
}

extension ChatStore {
    /// Whether `user` is an administrator (the setup link's user, `sotto user admin`).
    public func isAdministrator(_ user: UserID) async throws -> Bool {
        try await read { db in
            try db.row("SELECT is_admin FROM users WHERE id = ?", [.text(user.rawValue)]) { $0.int64(0) != 0 } ?? false
        }
    }
}
