import FoundationModels

/// Drafts three short replies the user could send next in a conversation, with the on-device
/// model.
///
/// ```swift
/// let drafter = ReplyDrafter()
/// let alice = Participant(id: "alice", name: "Alice")
/// let bob = Participant(id: "bob", name: "Bob")
/// let replies = try await drafter.suggestions(
///     replyingTo: [ChatMessage(author: bob, text: "Still on for Saturday?")], as: alice)
/// // ["Yes, can't wait!", "Sorry, I can't.", "What time again?"], or nil
/// ```
///
/// Each request runs in a fresh session that starts from the same fixed instructions and worked
/// examples, so requests share a prompt prefix the engine keeps cached, and no conversation
/// leaks into another.
public struct ReplyDrafter: Sendable {
    /// How many of the newest messages the model reads at least.
    public static let messageLimit = 8

    /// The prompt's window of messages starts at a multiple of this many messages into the
    /// conversation (see ``windowSize(messageCount:)``).
    public static let windowStep = 4

    /// How many of a conversation's last messages the prompt shows, given how many it has: the
    /// last ``messageLimit``, plus up to ``windowStep`` − 1 older ones, so that the window moves
    /// only every ``windowStep`` messages. Consecutive prompts of a conversation then begin with
    /// the same lines and the engine's prefix cache serves them: a new message costs the model
    /// its own tokens, not the whole window's. Given a window it chose, it returns its size.
    public static func windowSize(messageCount: Int) -> Int {
        messageCount <= messageLimit ? messageCount : messageLimit + (messageCount - messageLimit) % windowStep
    }

    /// Most replies returned.
    public static let suggestionCount = 3

    /// Sampling used unless another is given: top-40 at temperature 0.5 with a fixed seed, so
    /// the same conversation gets the same replies. (Greedy decoding repeats itself across the
    /// three replies.)
    public static let defaultOptions = GenerationOptions(
        sampling: .random(top: 40, seed: 7), temperature: 0.5, maximumResponseTokens: 160)

    /// The model the replies come from.
    public let model: SystemLanguageModel
    /// How replies are sampled.
    public var options: GenerationOptions
    /// Whether the schema (as JSON Schema) is added to the prompt. Off: the worked examples
    /// show the shape, the schema's regex is noise to a small model, and constrained decoding
    /// enforces it anyway. Kept for measuring (`scripts/eval-suggestions --schema-in-prompt`).
    package var includesSchemaInPrompt = false

    /// A model that is not a system model (one behind an OpenAI-compatible endpoint), when the
    /// drafter was made with one: the replies then come from it, and `model` is not used.
    private let otherModel: (any LanguageModel)?

    public init(model: SystemLanguageModel = .default, options: GenerationOptions = ReplyDrafter.defaultOptions) {
        self.model = model
        self.options = options
        otherModel = nil
    }

    /// Replies from any model of the seam (a remote one, say), which is taken to be available:
    /// a request it cannot answer fails with its error.
    public init(languageModel: some LanguageModel, options: GenerationOptions = ReplyDrafter.defaultOptions) {
        model = .default
        self.options = options
        otherModel = languageModel
    }

    /// Whether the model can be used now (checking does not load it).
    public var isAvailable: Bool { otherModel != nil || model.availability == .available }

    /// A session on the drafter's model, continuing from its worked examples.
    private func makeSession() -> LanguageModelSession {
        if let otherModel { return LanguageModelSession(model: otherModel, transcript: Self.transcript) }
        return LanguageModelSession(model: model, transcript: Self.transcript)
    }

    /// Loads the model and runs the fixed instructions and worked examples through it in the
    /// background, so that the first suggestions cost only their own conversation (a server calls
    /// this when it starts). Does nothing when the model is unavailable.
    public func prewarm() {
        guard isAvailable else { return }
        makeSession().prewarm()
    }

    /// Up to three replies `user` could send next, drafted from the last messages of
    /// `messages` (oldest first; the last ``windowSize(messageCount:)``).
    ///
    /// - Parameter onPartial: when given, the replies are streamed (`streamResponse`) and this
    ///   is called with each snapshot's replies so far, the last one still being written, each
    ///   trimmed (not yet cleaned: a reply may still be dropped from the result).
    /// - Parameter metadata: the request's metadata, for the model that runs it (Sotto's engine
    ///   reads its priority, user and staleness key from it: `EngineScheduling`).
    /// - Returns: nil when there is nothing to offer: the model is unavailable, the conversation
    ///   is empty or `user` sent its last message, or no usable reply came out.
    /// - Throws: the session's `GenerationError` when generation fails.
    public func suggestions(
        replyingTo messages: [ChatMessage], as user: Participant, tone: ReplyTone? = nil,
        onPartial: (@Sendable ([String]) -> Void)? = nil,
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) async throws -> [String]? {
        // A model still loading (the server's prewarm, just started) is waited for: a request
        // refused now would leave this conversation without suggestions until it changes.
        guard Self.wantsReply(messages, user: user), isAvailable || model.isLoading else { return nil }
        let session = makeSession()
        let prompt = Self.prompt(for: messages, user: user, tone: tone)
        let recent = messages.suffix(Self.windowSize(messageCount: messages.count))
        let raw =
            if recent.contains(where: { CJKReplySuggestions.isCJK($0.text) }) {
                try await replies(
                    CJKReplySuggestions.self, in: session, prompt: prompt, onPartial: onPartial, metadata: metadata,
                    \.replies, \.replies)
            } else {
                try await replies(
                    ReplySuggestions.self, in: session, prompt: prompt, onPartial: onPartial, metadata: metadata,
                    \.replies, \.replies)
            }
        let replies = Self.cleaned(raw, messages: recent, user: user)
        return replies.isEmpty ? nil : replies
    }

    /// The replies of one response, streamed when `onPartial` wants the snapshots.
    private func replies<Content: Generable>(
        _ type: Content.Type, in session: LanguageModelSession, prompt: String,
        onPartial: (@Sendable ([String]) -> Void)?, metadata: [String: any ConvertibleToGeneratedContent],
        _ final: KeyPath<Content, [String]>, _ partial: KeyPath<Content.PartiallyGenerated, [String]?>
    ) async throws -> [String] {
        let context = ContextOptions(includeSchemaInPrompt: includesSchemaInPrompt)
        guard let onPartial else {
            return try await session.respond(
                to: prompt, generating: type, options: options, contextOptions: context, metadata: metadata
            ).content[keyPath: final]
        }
        let stream = session.streamResponse(
            to: prompt, generating: type, options: options, contextOptions: context, metadata: metadata)
        for try await snapshot in stream {
            let replies = (snapshot.content[keyPath: partial] ?? []).map(TextMatching.trimmed).filter { !$0.isEmpty }
            if !replies.isEmpty { onPartial(replies) }
        }
        return try await stream.collect().content[keyPath: final]
    }

    /// Whether replies make sense: someone other than `user` sent the last message.
    public static func wantsReply(_ messages: [ChatMessage], user: Participant) -> Bool {
        guard let last = messages.last else { return false }
        return last.author.id != user.id
    }
}
