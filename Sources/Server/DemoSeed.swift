import ChatStore

/// The demo conversation `sotto seed demo` creates: alice and bob planning a hike.
public enum DemoSeed {
    public static let channel = ChannelID(type: "messaging", id: "weekend-hike")
    public static let channelName = "Weekend Hike"
    public static let users: [UserUpdate] = [.init(id: "alice", name: "Alice"), .init(id: "bob", name: "Bob")]

    /// Eight messages alternating between alice and bob, ending with bob.
    public static let messages: [(author: UserID, text: String)] = [
        ("alice", "Hey! Are we still on for the hike this weekend?"),
        ("bob", "Yeah! Saturday morning works for me."),
        ("alice", "Great. Want to do the ridge trail? It's about 12 km."),
        ("bob", "Sounds good. What time should we meet?"),
        ("alice", "How about 8am at the trailhead parking lot?"),
        ("bob", "Perfect. I'll bring snacks and extra water."),
        ("alice", "Nice! I'll check the weather forecast tonight."),
        ("bob", "Cool. Should we invite Sam too?"),
    ]

    /// Creates the users, channel and messages. Safe to run again: the messages have fixed ids,
    /// so a second run changes nothing. Returns the number of messages newly stored.
    @discardableResult
    public static func seed(into store: ChatStore) async throws -> Int {
        _ = try await store.upsertUsers(users, by: nil)
        _ = try await store.getOrCreateChannel(channel, name: channelName, members: ["bob"], by: "alice")
        var created = 0
        for (index, message) in messages.enumerated() {
            let result = try await store.sendMessage(
                NewMessage(
                    id: MessageID(rawValue: "demo-\(index + 1)"), cid: channel, author: message.author,
                    text: message.text))
            if result.created { created += 1 }
        }
        return created
    }
}
