import ChatIntelligence
import FoundationModels
import ModelStore

/// The on-device suggester: ChatIntelligence's ``ChatIntelligence/ReplyDrafter`` (three short
/// replies drafted by the local model) behind the server's ``ReplySuggester`` seam.
public struct ModelSuggester: ReplySuggester {
    private let drafter: ReplyDrafter

    /// Suggestions from the model file `model`, which `ModelStore` resolved from a name.
    public init(model: ModelFile) {
        self.init(ReplyDrafter(model: SystemLanguageModel(model: .path(model.path))))
    }

    /// Suggestions from `model` (the one the server's other features share, so it is loaded once).
    public init(model: SystemLanguageModel, name: String? = nil) {
        self.init(ReplyDrafter(model: model), modelName: name)
    }

    /// Suggestions from a configured drafter.
    public init(_ drafter: ReplyDrafter, modelName: String? = nil) {
        self.drafter = drafter
        self.modelName = modelName
    }

    /// Suggestions from any model of the seam: the hybrid fallback, a model behind an
    /// OpenAI-compatible endpoint, named `name` beside the replies.
    public init(fallback model: some LanguageModel, name: String) {
        self.init(ReplyDrafter(languageModel: model), modelName: name)
    }

    public let modelName: String?

    /// Whether the model can be used; when it cannot, leave the server without a suggester so
    /// the web app hides the suggestions row.
    public var isAvailable: Bool { drafter.isAvailable }

    /// Loads the model and prefills the suggester's fixed instructions and examples in the
    /// background (see ``ChatIntelligence/ReplyDrafter/prewarm()``).
    public func prewarm() { drafter.prewarm() }

    public func suggestions(for context: ReplyContext) async throws -> [String]? {
        let (messages, user) = Self.conversation(of: context)
        return try await drafter.suggestions(
            replyingTo: messages, as: user, tone: context.tone, metadata: Self.metadata(for: context))
    }

    /// Streams the replies (`streamResponse`), handing each snapshot's replies to `partial`.
    public func suggestions(for context: ReplyContext, partial: @escaping @Sendable ([String]) -> Void) async throws
        -> [String]?
    {
        let (messages, user) = Self.conversation(of: context)
        return try await drafter.suggestions(
            replyingTo: messages, as: user, tone: context.tone, onPartial: partial,
            metadata: Self.metadata(for: context))
    }

    /// How Sotto's engine schedules a suggestion (the keys LocalEngine's `EngineScheduling`
    /// reads): after what a person is waiting for, fairly between users, and a newer request
    /// for the same conversation and user supersedes an older one, queued or running.
    static func metadata(for context: ReplyContext) -> [String: any ConvertibleToGeneratedContent] {
        let user = context.user.id.rawValue
        return [
            "sotto.priority": "suggestion", "sotto.user": user,
            "sotto.staleness": "suggest/\(context.channel.cid.cid)/\(user)",
        ]
    }

    /// What the drafter reads: the context's messages with their authors' display names, and
    /// the user the replies are for.
    static func conversation(of context: ReplyContext) -> (messages: [ChatMessage], user: Participant) {
        let messages = context.recentMessages.map { message in
            ChatMessage(
                author: Participant(id: message.author.rawValue, name: context.authorName(of: message)),
                text: message.text)
        }
        return (messages, Participant(id: context.user.id.rawValue, name: context.user.name))
    }
}
