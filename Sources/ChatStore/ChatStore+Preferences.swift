extension ChatStore {
    /// Longest preference name and value, in characters.
    public static let maxPreferenceLength = 64

    /// A user's stored preference (`translation_language`, …), if set.
    public func preference(_ name: String, for user: UserID) async throws -> String? {
        try await read { db in
            try db.row(
                "SELECT value FROM preferences WHERE user_id = ? AND name = ?", [.text(user.rawValue), .text(name)]
            ) { $0.string(0) }
        }
    }

    /// Every preference of a user, by name.
    public func preferences(for user: UserID) async throws -> [String: String] {
        let pairs = try await read { db in
            try db.rows("SELECT name, value FROM preferences WHERE user_id = ?", [.text(user.rawValue)]) {
                ($0.string(0), $0.string(1))
            }
        }
        return Dictionary(pairs, uniquingKeysWith: { _, last in last })
    }

    /// Stores a user's preference (`nil` removes it). The user must exist.
    public func setPreference(_ name: String, to value: String?, for user: UserID) async throws {
        guard !name.isEmpty, name.count <= Self.maxPreferenceLength else {
            throw ChatStoreError.invalidArgument(
                field: "name", reason: "a preference name has 1 to \(Self.maxPreferenceLength) characters")
        }
        if let value, value.count > Self.maxPreferenceLength {
            throw ChatStoreError.invalidArgument(
                field: name, reason: "longer than \(Self.maxPreferenceLength) characters")
        }
        let now = Timestamp.now
        try await write { db in
            guard try Self.user(user, db) != nil else { throw ChatStoreError.notFound(what: "user", id: user.rawValue) }
            if let value {
                try db.run(
                    """
                    INSERT INTO preferences(user_id, name, value, updated_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT(user_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                    """, [.text(user.rawValue), .text(name), .text(value), .integer(now.milliseconds)])
            } else {
                try db.run(
                    "DELETE FROM preferences WHERE user_id = ? AND name = ?", [.text(user.rawValue), .text(name)])
            }
        }
    }
}
