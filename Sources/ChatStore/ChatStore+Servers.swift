extension ChatStore {
    /// The advisory lock that appending to the event log holds until its transaction ends, on
    /// a PostgreSQL database several servers share ("sotto" + 2; the migrator's is "sotto").
    static let eventLogLockKey: Int64 = 0x736F_7474_6F02
}
