import Foundation

/// The run `scripts/loadtest` asks for, as it writes it (`sotto-loadgen CONFIG.json`).
struct Configuration: Decodable, Sendable {
    var port: Int
    /// `[user_id, token]` pairs: every user gets a WebSocket; members' tokens also author messages.
    var users: [[String]]
    /// Channel id → its members' user ids.
    var channels: [String: [String]]
    /// Messages per second.
    var rate: Int
    var seconds: Int
    /// Kept-alive HTTP connections that send.
    var connections: Int
    var receiverThreads: Int
    /// Whether to run the unauthenticated and slow-header connections beside the load.
    var attackers: Bool
    /// Seconds to wait for the last deliveries after every send was answered.
    var grace: Double
    /// The share of posts (0…0.9) that change an earlier message: edits, reactions, deletions.
    var changes: Double

    enum CodingKeys: String, CodingKey {
        case port, users, channels, rate, seconds, connections, attackers, grace, changes
        case receiverThreads = "receiver_threads"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        port = try container.decode(Int.self, forKey: .port)
        users = try container.decode([[String]].self, forKey: .users)
        channels = try container.decode([String: [String]].self, forKey: .channels)
        rate = try container.decode(Int.self, forKey: .rate)
        seconds = try container.decode(Int.self, forKey: .seconds)
        connections = try container.decodeIfPresent(Int.self, forKey: .connections) ?? 128
        receiverThreads = try container.decodeIfPresent(Int.self, forKey: .receiverThreads) ?? 2
        attackers = try container.decodeIfPresent(Bool.self, forKey: .attackers) ?? false
        grace = try container.decodeIfPresent(Double.self, forKey: .grace) ?? 5
        changes = try container.decodeIfPresent(Double.self, forKey: .changes) ?? 0
    }

    static func load(from path: String) throws -> Configuration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw LoadGeneratorError("cannot read \(path): \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(Configuration.self, from: data)
        } catch {
            throw LoadGeneratorError("\(path) is not a load configuration: \(error)")
        }
    }
}

/// The configuration as the hot paths want it: users and channels by index, bytes ready to send.
struct LoadPlan: Sendable {
    struct User: Sendable {
        let id: String
        let token: String
        /// `token`'s bytes, for the sender's Authorization header.
        let tokenBytes: [UInt8]
    }

    struct Channel: Sendable {
        let cid: String
        /// Indices into `users`.
        let members: [Int]
        /// The POST's head up to the author's token.
        let requestPrefix: [UInt8]
    }

    let address: ServerAddress
    let users: [User]
    /// Sorted by cid, so a plan is the same whatever order the JSON object had.
    let channels: [Channel]
    let rate: Int
    let seconds: Int
    let connections: Int
    let receiverThreads: Int
    let attackers: Bool
    let grace: Double
    let changes: Double

    /// Messages to send: `rate × seconds`.
    var messageCount: Int { rate * seconds }

    init(_ configuration: Configuration) throws {
        guard (1...65535).contains(configuration.port) else {
            throw LoadGeneratorError("port \(configuration.port) is not a TCP port")
        }
        for (name, value) in [
            ("rate", configuration.rate), ("seconds", configuration.seconds),
            ("connections", configuration.connections), ("receiver_threads", configuration.receiverThreads),
        ] where value < 1 {
            throw LoadGeneratorError("\(name) must be at least 1, not \(value)")
        }
        guard configuration.grace >= 0 else { throw LoadGeneratorError("grace must not be negative") }
        guard (0...0.9).contains(configuration.changes) else {
            throw LoadGeneratorError("changes must be a share from 0 to 0.9, not \(configuration.changes)")
        }
        var users: [User] = []
        var indexOf: [String: Int] = [:]
        for pair in configuration.users {
            guard pair.count == 2 else {
                throw LoadGeneratorError("every user must be [user_id, token], not \(pair)")
            }
            guard indexOf[pair[0]] == nil else { throw LoadGeneratorError("user \(pair[0]) is listed twice") }
            indexOf[pair[0]] = users.count
            users.append(User(id: pair[0], token: pair[1], tokenBytes: Array(pair[1].utf8)))
        }
        guard !users.isEmpty else { throw LoadGeneratorError("no users") }
        var channels: [Channel] = []
        for (cid, memberIDs) in configuration.channels.sorted(by: { $0.key < $1.key }) {
            let members = try memberIDs.map { id in
                guard let index = indexOf[id] else {
                    throw LoadGeneratorError("channel \(cid) has member \(id), who is not among the users")
                }
                return index
            }
            guard !members.isEmpty else { throw LoadGeneratorError("channel \(cid) has no members") }
            let head = "POST /api/channels/\(cid)/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            channels.append(Channel(cid: cid, members: members, requestPrefix: Array(head.utf8)))
        }
        guard !channels.isEmpty else { throw LoadGeneratorError("no channels") }
        address = ServerAddress(port: configuration.port)
        self.users = users
        self.channels = channels
        rate = configuration.rate
        seconds = configuration.seconds
        connections = configuration.connections
        receiverThreads = configuration.receiverThreads
        attackers = configuration.attackers
        grace = configuration.grace
        changes = configuration.changes
    }
}
