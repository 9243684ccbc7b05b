import ChatStore
import Foundation
import ServerKit
import Synchronization

/// Where the suggestions for one user in one channel stand.
public struct SuggestionSnapshot: Hashable, Sendable, Codable {
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// `suggestions` answer the conversation as it is now.
        case ready
        /// A generation is queued or running; a `suggestions.updated` event will follow.
        case pending
        /// Nothing to suggest: the user spoke last, or the channel is empty.
        case none
        /// No model, or the model had nothing for this conversation.
        case unavailable
    }

    public var status: Status
    public var suggestions: [String]
    /// The conversation state these answer (see `ReplyContext.signature`).
    public var signature: String

    public init(status: Status, suggestions: [String] = [], signature: String) {
        self.status = status
        self.suggestions = suggestions
        self.signature = signature
    }
}

/// Runs reply suggestions on the model: the decisions are ``SuggestionQueue``'s (newest first,
/// only the newest request per conversation, at most `maxRunning` at once, results that are
/// still current), the effects this class's (workers on the suggestions executor, the model
/// calls, publishing).
public final class SuggestionScheduler: Sendable {
    public struct Key: Hashable, Sendable {
        public var user: UserID
        public var cid: ChannelID
        /// A thread's first message, for chips inside that thread; nil for the channel's.
        public var thread: MessageID?

        public init(user: UserID, cid: ChannelID, thread: MessageID? = nil) {
            self.user = user
            self.cid = cid
            self.thread = thread
        }
    }

    /// Most chips offered.
    public static let maxSuggestions = 3
    /// Longest chip text, in characters; longer ones are dropped.
    public static let maxSuggestionLength = 120

    private struct State {
        var queue: SuggestionQueue
        var tones: [Key: Tone] = [:]
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let suggester: (any ReplySuggester)?
    private let publish: @Sendable (Key, SuggestionSnapshot) async -> Void
    private let publishPartial: (@Sendable (Key, String, [String]) -> Void)?
    private let state: Mutex<State>

    /// `publish` is called (on the scheduler's task) when a result becomes current, and when
    /// a key's suggestions are withdrawn because the user spoke. `publishPartial`, when given,
    /// gets the chips so far (with the signature they answer) while a generation streams; a
    /// partial set for a conversation that moved on is not passed. At most `maxRunning`
    /// generations run at once.
    public init(
        suggester: (any ReplySuggester)?, maxRunning: Int = 1,
        publish: @escaping @Sendable (Key, SuggestionSnapshot) async -> Void,
        publishPartial: (@Sendable (Key, String, [String]) -> Void)? = nil
    ) {
        self.suggester = suggester
        self.publish = publish
        self.publishPartial = publishPartial
        state = Mutex(State(queue: SuggestionQueue(maxRunning: maxRunning)))
    }

    /// The server's scheduler: a result that becomes current (or a withdrawal) is recorded as a
    /// `suggestions.updated` event for its user and channel (ephemeral: sent in order with the
    /// log, not kept), and chips still streaming go to the user's sockets that take suggestions.
    convenience init(suggester: (any ReplySuggester)?, maxRunning: Int, store: ChatStore, live: some LiveFrames) {
        let modelName = suggester?.modelName
        self.init(suggester: suggester, maxRunning: maxRunning) { key, snapshot in
            let fields = SuggestionEventFields(
                user_id: key.user, status: snapshot.status, suggestions: snapshot.suggestions,
                signature: snapshot.signature, model: modelName, parent_id: key.thread)
            do {
                try await store.recordEvent(
                    type: EventType.suggestionsUpdated, fields: fields, to: .user(key.user, cid: key.cid),
                    ephemeral: true)
            } catch {
                // Suggestions are best-effort; the client can still GET them.
            }
        } publishPartial: { key, signature, chips in
            live.send(
                SuggestionPartialFrame(
                    cid: key.cid, user_id: key.user, signature: signature, suggestions: chips, parent_id: key.thread),
                to: key.user, suggestions: true)
        }
    }

    /// Generations waiting and running (for the metrics).
    var load: (queued: Int, running: Int) { state.withLock { $0.queue.load } }

    /// Whether a model is wired in at all.
    public var isAvailable: Bool { suggester != nil }

    /// The model the suggestions come from (the suggester's `modelName`).
    public var modelName: String? { suggester?.modelName }

    /// Number of times the suggester was called (for tests and stats).
    public var generationCount: Int { state.withLock { $0.queue.generations } }

    /// The tone last asked for by this user in this channel.
    public func preferredTone(for key: Key) -> Tone? { state.withLock { $0.tones[key] } }

    /// Records the tone this user wants in this channel for later, event-driven requests.
    public func setPreferredTone(_ tone: Tone?, for key: Key) {
        state.withLock { $0.tones[key] = tone }
    }

    /// Asks for suggestions for `context`; answers from the cache when it can, else queues a
    /// generation and answers `.pending`.
    @discardableResult
    public func submit(_ context: ReplyContext) async -> SuggestionSnapshot {
        let key = Key(user: context.user.id, cid: context.channel.cid, thread: context.thread)
        let signature = context.signature
        guard suggester != nil else { return SuggestionSnapshot(status: .unavailable, signature: signature) }
        let submission = state.withLock {
            $0.queue.submit(key: key, signature: signature, wantsReply: context.wantsReply, context: context)
        }
        if submission.startsWorker {
            Task.detached(executorPreference: ModelExecutor.suggestions) { [self] in await self.work() }
        }
        if submission.withdraws { await publish(key, submission.snapshot) }
        return submission.snapshot
    }

    /// The current snapshot for a key, if any request was made.
    public func snapshot(for key: Key) -> SuggestionSnapshot? {
        state.withLock { $0.queue.snapshot(for: key) }
    }

    /// Returns once no generation is queued or running.
    public func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state in
                if state.queue.isIdle { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// One worker: takes jobs until none is left.
    private func work() async {
        while let job = nextJob() {
            let key = job.key
            var suggestions: [String]?
            do {
                if let publishPartial {
                    suggestions = try await suggester?.suggestions(for: job.context) { [self] replies in
                        let chips = Self.clean(replies, context: job.context)
                        guard !chips.isEmpty, state.withLock({ $0.queue.isCurrent(key, job.signature) }) else { return }
                        publishPartial(key, job.signature, chips)
                    }
                } else {
                    suggestions = try await suggester?.suggestions(for: job.context)
                }
            } catch {
                suggestions = nil
            }
            let cleaned = suggestions.map { Self.clean($0, context: job.context) }
            let snapshot =
                if let cleaned, !cleaned.isEmpty {
                    SuggestionSnapshot(status: .ready, suggestions: cleaned, signature: job.signature)
                } else {
                    SuggestionSnapshot(status: .unavailable, signature: job.signature)
                }
            if state.withLock({ $0.queue.finish(job, with: snapshot) }) { await publish(key, snapshot) }
        }
    }

    /// The queue's next job, or nil (the worker retires; waiters for idleness are woken when
    /// it was the last).
    private func nextJob() -> SuggestionQueue.Job? {
        var waiters: [CheckedContinuation<Void, Never>] = []
        let job: SuggestionQueue.Job? = state.withLock { state in
            if let job = state.queue.next() { return job }
            if state.queue.isIdle {
                waiters = state.idleWaiters
                state.idleWaiters = []
            }
            return nil
        }
        for waiter in waiters { waiter.resume() }
        return job
    }

    /// Removes control characters and folds whitespace; drops empty, overlong and repeated
    /// chips (and lines already said); keeps three.
    static func clean(_ raw: [String], context: ReplyContext) -> [String] {
        var seen = Set(context.recentMessages.map { normalized($0.text) })
        var result: [String] = []
        for text in raw {
            let visible = String(
                String.UnicodeScalarView(
                    text.unicodeScalars.filter { $0.properties.generalCategory != .control || $0 == "\n" || $0 == "\t" }
                ))
            let trimmed = visible.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            let key = normalized(trimmed)
            guard !trimmed.isEmpty, trimmed.count <= maxSuggestionLength, !seen.contains(key) else { continue }
            seen.insert(key)
            result.append(trimmed)
            if result.count == maxSuggestions { break }
        }
        return result
    }

    private static func normalized(_ text: String) -> String {
        text.lowercased().filter { $0.isLetter || $0.isNumber || $0 == " " }.trimmingCharacters(in: .whitespaces)
    }
}
