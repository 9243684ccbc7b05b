import ChatIntelligence
import ChatStore
import Digests

/// The register replies are drafted in: ChatIntelligence's ``ChatIntelligence/ReplyTone``, under
/// the name the server's API and scheduler use.
public typealias Tone = ReplyTone

/// Everything a suggester needs to draft replies for one user in one conversation.
public struct ReplyContext: Hashable, Sendable {
    /// Who the replies are for: they would send them next.
    public var user: User
    public var channel: Channel
    /// Every member, the user included, for naming authors.
    public var participants: [User]
    /// The newest messages, oldest first (`ReplyContext.windowSize(messageCount:)` of them).
    public var recentMessages: [Message]
    public var tone: Tone?
    /// The thread the replies are for (its first message), or nil for the channel itself.
    public var thread: MessageID?

    /// How many recent messages a context carries at least.
    public static let messageLimit = ReplyDrafter.messageLimit

    /// How many of a channel's `messageCount` messages a context carries: the suggester's
    /// window (8 to 11, moving every 4 messages so consecutive prompts share their start).
    public static func windowSize(messageCount: Int) -> Int {
        ReplyDrafter.windowSize(messageCount: messageCount)
    }

    public init(
        user: User, channel: Channel, participants: [User], recentMessages: [Message], tone: Tone?,
        thread: MessageID? = nil
    ) {
        self.user = user
        self.channel = channel
        self.participants = participants
        self.recentMessages = recentMessages
        self.tone = tone
        self.thread = thread
    }

    /// The display name of a message's author (their id when unknown).
    public func authorName(of message: Message) -> String {
        participants.first { $0.id == message.author }?.name ?? message.author.rawValue
    }

    /// Suggestions are only offered when someone else spoke last.
    public var wantsReply: Bool {
        guard let last = recentMessages.last else { return false }
        return last.author != user.id
    }

    /// Identifies the conversation state the suggestions answer: the user, the tone and the
    /// recent messages' ids with their last edits (an edit makes new suggestions). Stable across
    /// processes (FNV-1a, not `Hasher`).
    public var signature: String {
        var hash = FNV1a()
        let messages = recentMessages.map { message in
            message.id.rawValue + (message.editedAt.map { "@\($0.milliseconds)" } ?? "")
        }
        let fields = [user.id.rawValue, channel.cid.cid, tone?.rawValue ?? "-", thread?.rawValue ?? "-"] + messages
        for field in fields {
            hash.combine(field.utf8)
            hash.combine(0xFF)  // never part of UTF-8: the fields cannot run into each other
        }
        return hash.hexDigest
    }
}

/// Drafts short replies. The server's seam for the on-device model.
///
/// Implementations are called one at a time by `SuggestionScheduler`. Return up to three
/// replies, or `nil` when there is nothing useful to offer (model unavailable, unsure, or a
/// sensitive topic): the web app then shows no suggestions row.
public protocol ReplySuggester: Sendable {
    func suggestions(for context: ReplyContext) async throws -> [String]?

    /// The same, calling `partial` with the replies so far while they are drafted (streaming
    /// chips). The default drafts without streaming.
    func suggestions(for context: ReplyContext, partial: @escaping @Sendable ([String]) -> Void) async throws
        -> [String]?

    /// The model the replies come from, as the web app names it beside them ("qwen2.5-coder-0.5b
    /// at http://…" for a remote one); nil when no model writes them. The default is nil.
    var modelName: String? { get }
}

extension ReplySuggester {
    public var modelName: String? { nil }

    public func suggestions(for context: ReplyContext, partial: @escaping @Sendable ([String]) -> Void) async throws
        -> [String]?
    {
        try await suggestions(for: context)
    }
}
