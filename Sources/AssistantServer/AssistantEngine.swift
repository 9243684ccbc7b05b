import ChatStore
import Foundation
import FoundationModels
import Markdown
import ServerKit
import Synchronization

/// The model side of the assistant: one `LanguageModelSession` per conversation, kept while the
/// server runs and rebuilt from the stored messages when there is none (after a restart) or when
/// it no longer matches them (new instructions, a regenerated answer, a failed turn).
///
/// - A session is made with the conversation's instructions (persona, custom text, response
///   language, and the summary a "Continue in a new session" left), as Apple's framework binds
///   them at creation; its transcript is the messages after the last divider.
/// - One answer at a time per conversation, streamed to the owner's sockets as
///   `assistant.updated` frames. Stopping cancels the reading task, which stops the engine
///   within a token (a stream nobody reads stops), and the partial answer is stored, marked
///   stopped.
/// - A turn that would not fit the window is refused before any generation (``ContextFull``).
package final class AssistantEngine: @unchecked Sendable {
    // @unchecked Sendable: `sessions`, `turns` and `background` are only touched inside `lock`.

    /// Tokens kept free for the answer: a turn is refused when the window would have fewer.
    package static let answerReserve = 512
    /// What a divider's text starts with when the new session starts from a summary.
    package static let summaryPrefix = "Summary of the conversation so far: "
    /// What a divider says when new settings started a new session.
    package static let resetText =
        "New settings: the model's memory was reset. Earlier messages stay visible, but the model no longer sees them."
    /// Frames are sent at most this often per answer (the last one always).
    package static let frameInterval: TimeInterval = 0.05

    package static func isSummary(_ dividerText: String) -> Bool { dividerText.hasPrefix(summaryPrefix) }

    /// How many turns (answers, summaries, continuations) one user may have running at once.
    package static let defaultMaxTurnsPerUser = 2
    /// Seconds a user over ``maxTurnsPerUser`` is told to wait (`Retry-After`).
    package static let turnRetrySeconds = 2

    package let store: ChatStore
    package let model: ServerModel
    package let maxTurnsPerUser: Int
    private let publish: @Sendable (UserID, String) -> Void

    private struct CachedSession {
        var session: LanguageModelSession
        /// Instructions, temperature and the last divider the session was made for.
        var key: String
    }

    private let lock = NSLock()
    private var sessions: [String: CachedSession] = [:]
    /// The running turns; each handle is the task that writes the answer and stores it, and
    /// ends after the outcome is stored and published.
    private var turns: TurnBook<Task<Void, Never>>
    /// Smart replies and titles being written, by id: cancelled by their owner's next turn in any
    /// conversation, so they never hold up a prompt (the engine would share its steps with them).
    /// A title cancelled so is written after a later answer.
    private var background: [UUID: (owner: UserID, task: Task<Void, Never>)] = [:]

    /// `publish` sends a frame's JSON to a user's sockets.
    package init(
        store: ChatStore, model: ServerModel, maxTurnsPerUser: Int = AssistantEngine.defaultMaxTurnsPerUser,
        publish: @escaping @Sendable (UserID, String) -> Void
    ) {
        self.store = store
        self.model = model
        self.maxTurnsPerUser = maxTurnsPerUser
        self.publish = publish
        turns = TurnBook(maxPerOwner: maxTurnsPerUser, retrySeconds: Self.turnRetrySeconds)
    }

    /// An engine whose frames go to their owners' open sockets.
    package convenience init(
        store: ChatStore, model: ServerModel, maxTurnsPerUser: Int = AssistantEngine.defaultMaxTurnsPerUser,
        live: some LiveFrames
    ) {
        self.init(store: store, model: model, maxTurnsPerUser: maxTurnsPerUser) { user, json in
            live.sendLive(to: user, json: json, suggestions: false)
        }
    }

    /// The turn would not fit the session's window.
    package struct ContextFull: Error {
        var used: Int
        var needed: Int
        var size: Int
    }

    // MARK: - Sessions

    /// The instructions a session of `conversation` is created with.
    package static func instructions(for conversation: AssistantConversation, summary: String?) -> String {
        var text = conversation.instructions
        if let code = conversation.language, let language = AssistantLanguage.named(code) {
            text += "\nAlways answer in \(language.name), whatever language the user writes in."
        }
        if let summary {
            text += "\nThe conversation so far, summarized (earlier messages are not shown to you): " + summary
        }
        return text
    }

    /// The messages the current session sees: those after the last divider, and that divider.
    package static func currentSession(of messages: [AssistantMessage]) -> (
        divider: AssistantMessage?, history: [AssistantMessage]
    ) {
        guard let last = messages.lastIndex(where: { $0.role == .divider }) else { return (nil, messages) }
        return (messages[last], Array(messages[(last + 1)...]))
    }

    /// The session for `conversation` whose transcript is `history` (user and assistant
    /// messages, oldest first): the kept one when it still matches, else a new one.
    package func session(
        for conversation: AssistantConversation, divider: AssistantMessage?, history: [AssistantMessage],
        model: any LanguageModel
    ) async -> LanguageModelSession {
        let summary = divider.flatMap {
            Self.isSummary($0.text) ? String($0.text.dropFirst(Self.summaryPrefix.count)) : nil
        }
        let instructions = Self.instructions(for: conversation, summary: summary)
        let key = "\(conversation.temperature)|\(divider?.id ?? "")|\(instructions)"
        let turnsSeen = history.filter { $0.role != .divider }
        if let cached = withLock({ sessions[conversation.id] }), cached.key == key,
            cached.session.transcript.count == turnsSeen.count + 1
        {
            return cached.session
        }
        var images: [String: [AssistantImage]] = [:]
        for message in turnsSeen where message.role == .user && !message.images.isEmpty {
            var loaded: [AssistantImage] = []
            for image in message.images {
                if let found = try? await store.assistantImage(image.id, in: conversation.id, for: conversation.owner) {
                    loaded.append(found)
                }
            }
            images[message.id] = loaded
        }
        return withLock {
            var entries: [Transcript.Entry] = [
                .instructions(
                    Transcript.Instructions(segments: [.text(.init(content: instructions))], toolDefinitions: []))
            ]
            for message in turnsSeen {
                var segments: [Transcript.Segment] = [.text(.init(content: message.text))]
                if let images = images[message.id] {
                    segments = Self.prompt(message.text, images: images).segments
                }
                entries.append(
                    message.role == .user
                        ? .prompt(Transcript.Prompt(segments: segments))
                        : .response(Transcript.Response(assetIDs: [], segments: segments)))
            }
            let session = LanguageModelSession(model: model, transcript: Transcript(entries: entries))
            sessions[conversation.id] = CachedSession(session: session, key: key)
            return session
        }
    }

    /// Forgets the kept session (a deleted conversation).
    package func forget(_ conversationID: String) {
        withLock { _ = sessions.removeValue(forKey: conversationID) }
    }

    /// The tokens the conversation's session holds now, instructions included, of its window; nil
    /// without the local model: the seam counts tokens only for a system model, and a fallback's
    /// endpoint does not say its window (it refuses a request that overflows it, with its error).
    package func context(of conversation: AssistantConversation, for owner: UserID) async throws -> AssistantContext? {
        guard let model = model.model else { return nil }
        let messages = try await store.assistantMessages(in: conversation.id, for: owner)
        let (divider, history) = Self.currentSession(of: messages)
        let session = await session(for: conversation, divider: divider, history: history, model: model)
        let used = try await model.tokenCount(for: session.transcript)
        return AssistantContext(used: used, size: model.contextSize)
    }

    // MARK: - Turns

    /// Throws the 429 that starting a turn now would, before a route stores anything for it (a
    /// prompt, or deletes the answer it regenerates); the turn's start checks again.
    package func checkCapacity(for owner: UserID) throws {
        try withLock { try turns.refusal(for: owner).map { throw $0 } }
    }

    /// Whether an answer is being written in the conversation.
    package func isAnswering(_ conversationID: String) -> Bool { withLock { turns.entry(for: conversationID) != nil } }

    /// A user's message as the model's prompt: each image as a `FoundationModels` image
    /// attachment (the engine reads it as "[Image context: …]"), then the text.
    package static func prompt(_ text: String, images: [AssistantImage]) -> Prompt {
        Prompt {
            images.map { Attachment(imageData: Data($0.bytes)) }
            question(text, images: images.count)
        }
    }

    /// What the model is asked: the user's text, or for images sent without any, a request to
    /// describe them (the stored message keeps what the user wrote: nothing).
    package static func question(_ text: String, images: Int) -> String {
        guard images > 0, text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return text }
        return images == 1 ? "What does this image show?" : "What do these images show?"
    }

    /// Checks that `prompt` and an answer fit after what the session holds, before any work.
    ///
    /// - Throws: ``ContextFull`` when they would not.
    package func checkFits(_ prompt: Prompt, in session: LanguageModelSession, model: SystemLanguageModel) async throws
    {
        let used = try await model.tokenCount(for: session.transcript)
        let promptTokens = try await model.tokenCount(for: prompt)
        let size = model.contextSize
        if used + promptTokens + Self.answerReserve > size {
            throw ContextFull(used: used, needed: promptTokens + Self.answerReserve, size: size)
        }
    }

    /// Starts answering `prompt` in `session` for the conversation; the answer is stored when it
    /// ends (finished or stopped) and every step is published.
    ///
    /// - Throws: `APIError` 409 when the conversation is already answering, 429 when the owner
    ///   already has ``maxTurnsPerUser`` turns running.
    package func startAnswer(
        _ prompt: Prompt, in session: LanguageModelSession, conversation: AssistantConversation, owner: UserID,
        stream: Bool, modelName: String
    ) async throws -> AssistantTurnView {
        let turnID = UUID().uuidString.lowercased()
        let options = GenerationOptions(
            temperature: conversation.temperature, maximumResponseTokens: Self.answerReserve)
        let work: Work = {
            update in
            if stream {
                let responses = session.streamResponse(to: prompt, options: options)
                for try await snapshot in responses { update(snapshot.content, snapshot.usage.output.totalTokenCount) }
                try Task.checkCancellation()
                let response = try await responses.collect()
                return (response.content, response.usage)
            } else {
                let response = try await session.respond(to: prompt, options: options)
                return (response.content, response.usage)
            }
        }
        return try begin(
            turnID, kind: .answer, conversation: conversation, owner: owner, work: work
        ) { [self] outcome in
            let message = try await store.appendAssistantMessage(
                NewAssistantMessage(
                    role: .assistant, text: outcome.text, inputTokens: outcome.inputTokens,
                    outputTokens: outcome.outputTokens, model: modelName, stopped: outcome.stopped),
                to: conversation.id, for: owner)
            if !outcome.stopped {
                await titleIfFirst(conversation, owner: owner)
                suggestReplies(after: message, in: conversation, owner: owner)
            }
            return message
        }
    }

    /// Summarizes the conversation into a new session ("Continue in a new session"): a fresh
    /// session with summarizer instructions writes it, and a divider holding it is stored.
    package func startContinuation(
        of conversation: AssistantConversation, messages: [AssistantMessage], owner: UserID, model: any LanguageModel
    ) async throws -> AssistantTurnView {
        let text = Self.conversationText(messages, characterLimit: 6000)
        let work = Self.summaryWork(text, sentences: 4, model: model)
        return try begin(
            UUID().uuidString.lowercased(), kind: .continuation, conversation: conversation, owner: owner, work: work
        ) { [self] outcome in
            guard !outcome.stopped else { return nil }
            let divider = try await store.appendAssistantMessage(
                NewAssistantMessage(role: .divider, text: Self.summaryPrefix + outcome.text), to: conversation.id,
                for: owner)
            forget(conversation.id)
            return divider
        }
    }

    /// A 3-sentence summary for the Summarize panel, from a fresh session; nothing is stored.
    package func startSummary(
        of conversation: AssistantConversation, messages: [AssistantMessage], owner: UserID, model: any LanguageModel
    ) throws -> AssistantTurnView {
        let text = Self.conversationText(messages, characterLimit: 6000)
        return try begin(
            UUID().uuidString.lowercased(), kind: .summary, conversation: conversation, owner: owner,
            work: Self.summaryWork(text, sentences: 3, model: model)
        ) { _ in nil }
    }

    /// Stops the conversation's answer and waits until what was written is stored (the engine
    /// stops within a token of the cancellation). False when nothing was being answered.
    package func stop(_ conversationID: String, for owner: UserID) async -> Bool {
        guard let turn = withLock({ turns.entry(for: conversationID) }), turn.owner == owner else { return false }
        turn.handle.cancel()
        await turn.handle.value
        return true
    }

    /// Waits until no answer is being written (tests).
    package func waitUntilIdle(timeout: TimeInterval = 120) async {
        let deadline = Date().addingTimeInterval(timeout)
        while withLock({ !turns.isEmpty }), Date() < deadline { try? await Task.sleep(for: .milliseconds(10)) }
    }

    package typealias Work =
        @Sendable (_ update: @escaping @Sendable (String, Int) -> Void) async throws -> (
            String, LanguageModelSession.Usage?
        )

    /// Runs `work` as the conversation's one turn, publishing its progress; `finish` stores the
    /// outcome and returns the stored message.
    private func begin(
        _ turnID: String, kind: AssistantTurnView.Kind, conversation: AssistantConversation, owner: UserID,
        work: @escaping Work, finish: @escaping @Sendable (AssistantTurn.Outcome) async throws -> AssistantMessage?
    ) throws -> AssistantTurnView {
        let turn = AssistantTurn(id: turnID, kind: kind, frameInterval: Self.frameInterval)
        // Checked, started and noted under one lock: a stop always finds the task, and the
        // task's own removal of the turn (at its end) cannot come before it is noted.
        try withLock {
            try turns.admit(turnID, owner: owner, in: conversation.id) {
                for (id, entry) in background where entry.owner == owner {
                    entry.task.cancel()
                    background[id] = nil
                }
                return run(turn, conversation: conversation, owner: owner, work: work, finish: finish)
            }
        }
        return turn.view
    }

    /// The task of one turn: the work, its frames, and the outcome stored and published. The
    /// task owns the turn's state (``AssistantTurn``); the work's progress reaches it through
    /// `state`, on the same task.
    private func run(
        _ turn: AssistantTurn, conversation: AssistantConversation, owner: UserID, work: @escaping Work,
        finish: @escaping @Sendable (AssistantTurn.Outcome) async throws -> AssistantMessage?
    ) -> Task<Void, Never> {
        let state = Mutex(turn)
        let turnID = turn.view.id
        return Task.detached(executorPreference: ModelExecutor.assistant) { [self] in
            let ending: AssistantTurn.Ending
            do {
                let (text, usage) = try await work { text, tokens in
                    if let frame = state.withLock({ $0.progress(text, tokens: tokens, at: Date()) }) {
                        self.send(owner, conversation.id, frame)
                    }
                }
                ending = .finished(text, usage)
            } catch {
                ending = error is CancellationError || Task.isCancelled ? .cancelled : .failed(error)
            }
            if let outcome = state.withLock({ $0.end(ending) }) {
                do {
                    let stored = try await finish(outcome)
                    state.withLock { $0.stored(stored) }
                } catch {
                    state.withLock { $0.storeFailed() }
                }
            }
            var context: AssistantContext?
            if let current = try? await store.assistantConversation(conversation.id, for: owner) {
                context = try? await self.context(of: current, for: owner)
            }
            self.withLock { self.turns.remove(turnID, in: conversation.id) }
            self.send(owner, conversation.id, state.withLock { $0.view }, context: context)
        }
    }

    private func send(
        _ owner: UserID, _ conversationID: String, _ turn: AssistantTurnView, context: AssistantContext? = nil
    ) {
        let frame = AssistantFrame(conversation_id: conversationID, turn: turn, context: context)
        if let bytes = try? JSONBody.encode(frame) { publish(owner, String(decoding: bytes, as: UTF8.self)) }
    }

    // MARK: - Summaries and titles

    /// After an answer in a conversation still called "New chat" (the first, or a later one when
    /// a new turn cancelled the title), the model writes a title from the first messages (a
    /// schema-bounded `AssistantTitle`), in the background.
    private func titleIfFirst(_ conversation: AssistantConversation, owner: UserID) async {
        guard let model = model.choice?.model,
            let messages = try? await store.assistantMessages(in: conversation.id, for: owner),
            let current = try? await store.assistantConversation(conversation.id, for: owner),
            current.title == AssistantAPI.defaultTitle,
            messages.contains(where: { $0.role == .assistant })
        else { return }
        let text = Self.conversationText(Array(messages.prefix(4)), characterLimit: 1200)
        let id = UUID()
        let task = Task.detached(executorPreference: ModelExecutor.assistant) { [self] in
            defer { withLock { _ = background.removeValue(forKey: id) } }
            let session = LanguageModelSession(
                model: model, instructions: "You write a short title (2 to 5 words) for a conversation.")
            guard
                let response = try? await session.respond(
                    to: "Title for this conversation:\n\(text)", generating: AssistantTitle.self,
                    options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 24),
                    metadata: Self.background(for: owner)),
                !Task.isCancelled,
                let renamed = try? await store.renameAssistantConversation(
                    conversation.id, to: response.content.title, for: owner),
                let bytes = try? JSONBody.encode(AssistantConversationFrame(conversation: renamed))
            else { return }
            publish(owner, String(decoding: bytes, as: UTF8.self))
        }
        inBackground(task, id: id, owner: owner)
    }

    /// How Sotto's engine schedules a title or smart replies (the keys LocalEngine's
    /// `EngineScheduling` reads; another model ignores them): nobody is waiting for them, so
    /// after answers and after chat suggestions, fairly between users.
    static func background(for owner: UserID) -> [String: any ConvertibleToGeneratedContent] {
        ["sotto.priority": "background", "sotto.user": owner.rawValue]
    }

    private func inBackground(_ task: Task<Void, Never>, id: UUID, owner: UserID) {
        withLock { background[id] = (owner, task) }
    }

    /// Three replies the user might send after `answer`, in the background, from a fresh
    /// session; published as an `assistant.replies` frame unless a new turn began meanwhile.
    private func suggestReplies(after answer: AssistantMessage, in conversation: AssistantConversation, owner: UserID) {
        guard let model = model.choice?.model else { return }
        let context = String(answer.text.prefix(1500))
        let id = UUID()
        let task = Task.detached(executorPreference: ModelExecutor.assistant) { [self] in
            defer { withLock { _ = background.removeValue(forKey: id) } }
            let session = LanguageModelSession(
                model: model,
                instructions:
                    "You suggest what a user might write next to an assistant: three short, different replies or follow-up questions, in the user's voice."
            )
            guard
                let response = try? await session.respond(
                    to: "The assistant just said:\n\(context)\n\nWhat might the user write next?",
                    generating: AssistantReplies.self,
                    options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 96),
                    metadata: Self.background(for: owner)),
                !Task.isCancelled,
                let bytes = try? JSONBody.encode(
                    AssistantRepliesFrame(
                        conversation_id: conversation.id, message_id: answer.id,
                        replies: Self.distinct(response.content.replies)))
            else { return }
            publish(owner, String(decoding: bytes, as: UTF8.self))
        }
        inBackground(task, id: id, owner: owner)
    }

    private func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
