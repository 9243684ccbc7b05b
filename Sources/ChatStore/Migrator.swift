import Foundation

/// Applies named schema migrations once each, in the order they were registered.
///
/// Applied identifiers are kept in the `schema_migrations` table, so a database opened by a
/// newer build runs only the migrations it has not seen.
///
/// ```swift
/// var migrator = Migrator()
/// migrator.registerMigration("v1: users") { db in try db.execute("CREATE TABLE users(...)") }
/// try migrator.migrate(connection)
/// ```
package struct Migrator {
    private var migrations: [(identifier: String, migrate: (Connection) throws -> Void)] = []

    package init() {}

    package mutating func registerMigration(_ identifier: String, migrate: @escaping (Connection) throws -> Void) {
        precondition(!migrations.contains { $0.identifier == identifier }, "duplicate migration \(identifier)")
        migrations.append((identifier, migrate))
    }

    /// The migrations up to and including `identifier`: how a database of an older build is
    /// made, to test the migrations after it.
    package func through(_ identifier: String) -> Migrator {
        guard let last = migrations.firstIndex(where: { $0.identifier == identifier }) else {
            preconditionFailure("no migration \(identifier)")
        }
        var older = Migrator()
        older.migrations = Array(migrations[...last])
        return older
    }

    /// Identifiers of every registered migration, in order.
    package var identifiers: [String] { migrations.map(\.identifier) }

    /// Runs the migrations not yet applied; each in its own transaction.
    ///
    /// On PostgreSQL, where several servers may start at once, one migrates at a time (a
    /// session advisory lock), and the others find the migrations applied.
    package func migrate(_ db: Connection) throws {
        switch db.dialect {
        case .sqlite:
            try db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations(identifier TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)"
            )
        case .postgresql:
            try db.execute("SELECT pg_advisory_lock(\(Self.postgresLock))")
            // `rowid` keeps the order they were applied in, as SQLite's own rowid does.
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations(
                    rowid BIGINT GENERATED ALWAYS AS IDENTITY,
                    identifier TEXT PRIMARY KEY,
                    applied_at BIGINT NOT NULL
                )
                """)
        }
        defer { if db.dialect == .postgresql { try? db.execute("SELECT pg_advisory_unlock(\(Self.postgresLock))") } }
        let applied = Set(try db.rows("SELECT identifier FROM schema_migrations") { $0.string(0) })
        for migration in migrations where !applied.contains(migration.identifier) {
            try db.transaction {
                try migration.migrate(db)
                try db.run(
                    "INSERT INTO schema_migrations(identifier, applied_at) VALUES (?, ?)",
                    [.text(migration.identifier), .integer(Timestamp.now.milliseconds)])
            }
        }
    }

    /// The advisory lock that migrations on PostgreSQL hold ("sotto" in ASCII).
    static let postgresLock: Int64 = 0x736F_7474_6F

    /// Identifiers already applied to `db`.
    package static func appliedIdentifiers(_ db: Connection) throws -> [String] {
        try db.rows("SELECT identifier FROM schema_migrations ORDER BY rowid") { $0.string(0) }
    }
}
