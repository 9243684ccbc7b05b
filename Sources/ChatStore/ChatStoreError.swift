/// A request the store refuses. Database failures are thrown as `DatabaseError` instead.
public enum ChatStoreError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A field of the request is malformed or out of range.
    case invalidArgument(field: String, reason: String)
    /// The named thing does not exist (`what` is e.g. "channel", `id` its id).
    case notFound(what: String, id: String)
    /// The user is not a member of the channel.
    case notMember(user: UserID, channel: ChannelID)
    /// The user may not change this thing (e.g. another user's profile).
    case forbidden(reason: String)
    /// The request clashes with stored state, e.g. a message id reused for different content.
    case conflict(reason: String)
    /// The user keeps as much as the server allows of something (``StorageQuota``).
    case quotaExceeded(reason: String)

    public var description: String {
        switch self {
        case .invalidArgument(let field, let reason): "invalid \(field): \(reason)"
        case .notFound(let what, let id): "\(what) '\(id)' not found"
        case .notMember(let user, let channel): "user '\(user)' is not a member of channel '\(channel)'"
        case .forbidden(let reason): reason
        case .conflict(let reason): reason
        case .quotaExceeded(let reason): reason
        }
    }
}
