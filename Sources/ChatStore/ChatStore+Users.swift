import Foundation

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
    /// `actor` is the user making the request: anyone may create new users, but only the user
    /// themselves may rename an existing one. `nil` means the server itself (CLI, seeding),
    /// which may change anyone.
    public func upsertUsers(_ updates: [UserUpdate], by actor: UserID?) throws -> [User] {
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
        let now = Timestamp.now
        return try write { db in
            try checked.map { update in
                if let existing = try Self.user(update.id, db) {
                    if let actor, actor != update.id, existing.name != update.name {
                        throw ChatStoreError.forbidden(reason: "user '\(actor)' may not rename user '\(update.id)'")
                    }
                    guard existing.name != update.name else { return existing }
                    try db.run(
                        "UPDATE users SET name = ?, updated_at = ? WHERE id = ?",
                        [.text(update.name), .integer(now.milliseconds), .text(update.id.rawValue)])
                } else {
                    try db.run(
                        "INSERT INTO users(id, name, created_at, updated_at) VALUES (?, ?, ?, ?)",
                        [
                            .text(update.id.rawValue), .text(update.name), .integer(now.milliseconds),
                            .integer(now.milliseconds),
                        ])
                }
                return try Self.user(update.id, db)!
            }
        }
    }

    /// Creates the user with their id as name if they do not exist yet; returns the stored user.
    public func ensureUser(_ id: UserID) throws -> User {
        if let user = try user(id) { return user }
        let valid = try UserID.validated(id.rawValue)
        let now = Timestamp.now.milliseconds
        return try write { db in
            try db.run(
                "INSERT OR IGNORE INTO users(id, name, created_at, updated_at) VALUES (?, ?, ?, ?)",
                [.text(valid.rawValue), .text(valid.rawValue), .integer(now), .integer(now)])
            return try Self.user(valid, db)!
        }
    }

    /// The user with this id, if any.
    public func user(_ id: UserID) throws -> User? {
        try read { try Self.user(id, $0) }
    }

    /// The users with these ids that exist, in the order asked.
    public func users(_ ids: [UserID]) throws -> [User] {
        try read { db in try ids.compactMap { try Self.user($0, db) } }
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
        guard trimmed.count <= 100 else {
            throw ChatStoreError.invalidArgument(field: field, reason: "longer than 100 characters")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ChatStoreError.invalidArgument(field: field, reason: "contains control characters")
        }
        return trimmed
    }
}
