import Foundation

/// Whether a user may sign in, and which of their tokens still count.
public struct UserAccess: Hashable, Sendable {
    /// Tokens minted with an older generation are revoked (`sotto token revoke`).
    public var tokenGeneration: Int64
    /// A disabled user's every request is refused and their sockets are closed.
    public var isDisabled: Bool

    public init(tokenGeneration: Int64 = 0, isDisabled: Bool = false) {
        self.tokenGeneration = tokenGeneration
        self.isDisabled = isDisabled
    }

    /// A user who never had a token revoked and is not disabled.
    public static let unrestricted = UserAccess()
}

/// The administrator's controls over sign-in: revoking a user's tokens and disabling a user.
/// Every change also moves ``accessVersion()``, which a running server polls: the command line
/// (`sotto token revoke`, `sotto user disable`) changes the database under it.
extension ChatStore {
    /// A number that changes whenever any user's access does.
    public func accessVersion() async throws -> Int64 {
        try await read { db in try db.row("SELECT version FROM access_state WHERE id = 1") { $0.int64(0) } ?? 0 }
    }

    /// The access of every user whose tokens were ever revoked or who is disabled (the others
    /// are ``UserAccess/unrestricted``).
    public func restrictedAccess() async throws -> [UserID: UserAccess] {
        try await read { db in
            let rows = try db.rows(
                "SELECT id, token_generation, disabled_at FROM users WHERE token_generation > 0 OR disabled_at IS NOT NULL"
            ) { row in
                (UserID(rawValue: row.string(0)), UserAccess(tokenGeneration: row.int64(1), isDisabled: !row.isNull(2)))
            }
            return Dictionary(rows, uniquingKeysWith: { _, last in last })
        }
    }

    /// The user's access (``UserAccess/unrestricted`` for a user who does not exist yet).
    public func access(of user: UserID) async throws -> UserAccess {
        try await read { db in
            try db.row("SELECT token_generation, disabled_at FROM users WHERE id = ?", [.text(user.rawValue)]) {
                UserAccess(tokenGeneration: $0.int64(0), isDisabled: !$0.isNull(1))
            } ?? .unrestricted
        }
    }

    /// Revokes every token of `user` minted so far (creating the user if they do not exist, as
    /// their first request would); returns the generation new tokens carry.
    @discardableResult
    public func revokeTokens(of user: UserID) async throws -> Int64 {
        _ = try await ensureUser(user)
        return try await write { db in
            try db.run(
                "UPDATE users SET token_generation = token_generation + 1 WHERE id = ?", [.text(user.rawValue)])
            try Self.accessChanged(db)
            return try db.row("SELECT token_generation FROM users WHERE id = ?", [.text(user.rawValue)]) {
                $0.int64(0)
            } ?? 0
        }
    }

    /// Disables `user` (every request refused, every socket closed) or enables them again.
    ///
    /// - Throws: `notFound` for a user who does not exist.
    public func setDisabled(_ disabled: Bool, for user: UserID) async throws {
        try await write { db in
            guard try Self.user(user, db) != nil else { throw ChatStoreError.notFound(what: "user", id: user.rawValue) }
            try db.run(
                "UPDATE users SET disabled_at = ? WHERE id = ?",
                [disabled ? .integer(Timestamp.now.milliseconds) : .null, .text(user.rawValue)])
            try Self.accessChanged(db)
        }
    }

    static func accessChanged(_ db: Connection) throws {
        try db.run("UPDATE access_state SET version = version + 1 WHERE id = 1")
    }
}
