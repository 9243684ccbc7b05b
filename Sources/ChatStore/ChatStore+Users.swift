import Foundation
import Synchronization

/// A user to create or rename.
public struct UserUpdate: Hashable, Sendable, Codable {
    public var id: UserID
    public var name: String

    public init(id: UserID, name: String) {
        self.id = id
        self.name = name
    }
}

extension ChatStore {
    /// Creates or renames users and returns them as stored.
    ///
    /// `actor` is the user making the request, who may only rename themselves; `nil` means an
    /// administrator (the CLI, seeding, a token with the admin claim), who may create and rename
    /// anyone. Display names are unique, compared case-insensitively: a name someone else holds
    /// is a `conflict`.
    public func upsertUsers(_ updates: [UserUpdate], by actor: UserID?) async throws -> [User] {
        guard !updates.isEmpty else {
            throw ChatStoreError.invalidArgument(field: "users", reason: "must not be empty")
        }
        guard updates.count <= 100 else {
            throw ChatStoreError.invalidArgument(field: "users", reason: "at most 100 users per request")
        }
        var checked: [UserUpdate] = []
        for (index, update) in updates.enumerated() {
            let id = try UserID.validated(update.id.rawValue, field: "users[\(index)].id")
            let name = try Self.validatedName(update.name, field: "users[\(index)].name")
            checked.append(UserUpdate(id: id, name: name))
        }
        if let actor, let other = checked.first(where: { $0.id != actor }) {
            throw ChatStoreError.forbidden(
                reason:
                    "user '\(actor)' may not create or rename user '\(other.id)': that takes an administrator (sotto user add, or a token from sotto token --admin)"
            )
        }
        var seen: [String: UserID] = [:]
        for update in checked {
            if let earlier = seen[update.name.lowercased()], earlier != update.id {
                throw ChatStoreError.conflict(
                    reason: "users '\(earlier)' and '\(update.id)' cannot both be named '\(update.name)'")
            }
            seen[update.name.lowercased()] = update.id
        }
        let now = Timestamp.now
        return try await write { [checked] db in
            try checked.map { update in
                if let holder = try Self.userNamed(update.name, other: update.id, db) {
                    let same = holder.name.lowercased() == update.name.lowercased()
                    throw ChatStoreError.conflict(
                        reason: same
                            ? "the display name '\(update.name)' is taken by another user"
                            : "the display name '\(update.name)' looks like '\(holder.name)', another user's")
                }
                if let existing = try Self.user(update.id, db) {
                    guard existing.name != update.name else { return existing }
                    try db.run(
                        "UPDATE users SET name = ?, name_skeleton = ?, updated_at = ? WHERE id = ?",
                        [
                            .text(update.name), .text(DisplayNameRules.skeleton(of: update.name)),
                            .integer(now.milliseconds), .text(update.id.rawValue),
                        ])
                } else {
                    try Self.insertUser(update.id, name: update.name, now: now.milliseconds, db)
                }
                return try Self.user(update.id, db)!
            }
        }
    }

    /// Makes sure `id` exists, as `ensureUser`, reading the database only the first time: users
    /// are never deleted, and every authenticated request asks.
    public func ensureUserExists(_ id: UserID) async throws {
        guard !knownUsers.withLock({ $0.contains(id) }) else { return }
        _ = try await ensureUser(id)
        knownUsers.withLock { _ = $0.insert(id) }
    }

    /// Creates the user with their id as name if they do not exist yet (their id with a
    /// number when another user holds that name); returns the stored user.
    public func ensureUser(_ id: UserID) async throws -> User {
        if let user = try await user(id) { return user }
        let valid = try UserID.validated(id.rawValue)
        let now = Timestamp.now.milliseconds
        return try await write { db in
            if let user = try Self.user(valid, db) { return user }
            for attempt in 1...100 {
                let name = attempt == 1 ? valid.rawValue : "\(valid.rawValue) (\(attempt))"
                guard try Self.userNamed(name, db) == nil else { continue }
                try Self.insertUser(valid, name: name, now: now, db)
                return try Self.user(valid, db)!
            }
            throw ChatStoreError.conflict(reason: "no free display name for user '\(valid)'")
        }
    }

    /// A user other than `other` whose display name is `name` compared case-insensitively, or
    /// looks like it (the same ``DisplayNameRules/skeleton(of:)``).
    static func userNamed(_ name: String, other: UserID? = nil, _ db: Connection) throws -> User? {
        try db.row(
            """
            SELECT \(userColumns) FROM users WHERE (\(db.dialect == .sqlite ? "name = ?1 COLLATE NOCASE" : "lower(name) = lower(?1)")
                OR name_skeleton = ?2) AND id != ?3
            LIMIT 1
            """, [.text(name), .text(DisplayNameRules.skeleton(of: name)), .text(other?.rawValue ?? "")], userRow)
    }

    static func insertUser(_ id: UserID, name: String, now: Int64, _ db: Connection) throws {
        try db.run(
            "INSERT INTO users(id, name, name_skeleton, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
            [.text(id.rawValue), .text(name), .text(DisplayNameRules.skeleton(of: name)), .integer(now), .integer(now)])
    }

    /// The user with this id, if any.
    public func user(_ id: UserID) async throws -> User? {
        try await read { try Self.user(id, $0) }
    }

    /// Every user, by id.
    public func allUsers() async throws -> [User] {
        try await read { try $0.rows("SELECT \(Self.userColumns) FROM users ORDER BY id", [], Self.userRow) }
    }

    /// The users with these ids that exist, in the order asked.
    public func users(_ ids: [UserID]) async throws -> [User] {
        try await read { db in try ids.compactMap { try Self.user($0, db) } }
    }

    static let userColumns = "id, name, created_at, updated_at"

    static func user(_ id: UserID, _ db: Connection) throws -> User? {
        try db.row("SELECT \(userColumns) FROM users WHERE id = ?", [.text(id.rawValue)], userRow)
    }

    /// Maps `userColumns` starting at `offset`.
    static func userRow(_ row: Statement, offset: Int32) -> User {
        User(
            id: UserID(rawValue: row.string(offset)), name: row.string(offset + 1),
            createdAt: Timestamp(milliseconds: row.int64(offset + 2)),
            updatedAt: Timestamp(milliseconds: row.int64(offset + 3)))
    }

    static func userRow(_ row: Statement) -> User { userRow(row, offset: 0) }

    static func validatedName(_ name: String, field: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw ChatStoreError.invalidArgument(field: field, reason: "must not be empty") }
        guard trimmed.unicodeScalars.count <= 100 else {
            throw ChatStoreError.invalidArgument(field: field, reason: "longer than 100 characters")
        }
        if let problem = DisplayNameRules.problem(in: trimmed) {
            throw ChatStoreError.invalidArgument(field: field, reason: problem)
        }
        return trimmed
    }

    /// The explicit bidirectional formatting characters (Unicode's Bidi_Control property):
    /// embeddings, overrides, isolates and the directional marks.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
