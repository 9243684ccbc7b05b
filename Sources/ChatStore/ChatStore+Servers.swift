extension ChatStore {
    /// The advisory lock a server holds on a PostgreSQL database while it serves it ("sotto" +
    /// 1; the migrator's is "sotto").
    static let serverLockKey: Int64 = 0x736F_7474_6F01

    /// Claims the database for this process's server, for as long as the store is open.
    ///
    /// One server per database is what this build supports: each server hands its events to its
    /// own sockets only, and runs its background work itself. On SQLite the file's owner is the
    /// one process that opens it to serve; on PostgreSQL, where any number could connect, a
    /// session-level advisory lock on the writer's connection says a server is there, and a
    /// second one is refused instead of splitting the chat in two. Commands that change the
    /// store (`sotto user`, `sotto db migrate`) do not claim it and may run beside a server.
    ///
    /// - Returns: false when another server holds the database.
    public func claimServing() async throws -> Bool {
        guard case .postgresql = location else { return true }
        return try await write { db in
            try db.row("SELECT pg_try_advisory_lock(?)", [.integer(Self.serverLockKey)]) { $0.int(0) } == 1
        }
    }
}
