import ChatStore
import Foundation

/// Where the suggestions for one user in one channel stand.
public struct SuggestionSnapshot: Hashable, Sendable, Codable {
    public enum Status: String, Sendable, Codable {
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

/// Runs reply suggestions one at a time on the model.
///
/// - Only the newest request per (user, channel) is kept while waiting; across keys the most
///   recently requested runs first.
/// - A result is published only if its conversation has not moved on meanwhile.
/// - A request whose signature matches the cached result is answered from the cache.
/// - A context whose last message is the user's own gets `.none` without touching the model.
public final class SuggestionScheduler: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is touched only inside `lock`.

    public struct Key: Hashable, Sendable {
        public var user: UserID
        public var cid: ChannelID

        public init(user: UserID, cid: ChannelID) {
            self.user = user
            self.cid = cid
        }
    }

    /// Most chips offered.
    public static let maxSuggestions = 3
    /// Longest chip text, in characters; longer ones are dropped.
    public static let maxSuggestionLength = 120

    private struct Job {
        var context: ReplyContext
        var signature: String
        var order: Int
    }

    private let suggester: (any ReplySuggester)?
    private let publish: @Sendable (Key, SuggestionSnapshot) async -> Void
    private let publishPartial: (@Sendable (Key, String, [String]) -> Void)?
    private let lock = NSLock()
    private var latest: [Key: String] = [:]
    private var results: [Key: SuggestionSnapshot] = [:]
    private var pending: [Key: Job] = [:]
    private var running: (key: Key, signature: String)?
    private var tones: [Key: Tone] = [:]
    private var order = 0
    private var workerActive = false
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var generations = 0

    /// `publish` is called (on the scheduler's task) when a result becomes current, and when
    /// a key's suggestions are withdrawn because the user spoke. `publishPartial`, when given,
    /// gets the chips so far (with the signature they answer) while a generation streams; a
    /// partial set for a conversation that moved on is not passed.
    public init(
        suggester: (any ReplySuggester)?, publish: @escaping @Sendable (Key, SuggestionSnapshot) async -> Void,
        publishPartial: (@Sendable (Key, String, [String]) -> Void)? = nil
    ) {
        self.suggester = suggester
        self.publish = publish
        self.publishPartial = publishPartial
    }

    /// Whether a model is wired in at all.
    public var isAvailable: Bool { suggester != nil }

    /// The model the suggestions come from (the suggester's `modelName`).
    public var modelName: String? { suggester?.modelName }

    /// Number of times the suggester was called (for tests and stats).
    public var generationCount: Int { withLock { generations } }

    /// The tone last asked for by this user in this channel.
    public func preferredTone(for key: Key) -> Tone? { withLock { tones[key] } }

    /// Records the tone this user wants in this channel for later, event-driven requests.
    public func setPreferredTone(_ tone: Tone?, for key: Key) {
        withLock { tones[key] = tone }
    }

    /// Asks for suggestions for `context`; answers from the cache when it can, else queues a
    /// generation and answers `.pending`.
    @discardableResult
    public func submit(_ context: ReplyContext) async -> SuggestionSnapshot {
        let key = Key(user: context.user.id, cid: context.channel.cid)
        let signature = context.signature
        guard suggester != nil else { return SuggestionSnapshot(status: .unavailable, signature: signature) }
        var withdrawn = false
        let snapshot: SuggestionSnapshot = withLock {
            latest[key] = signature
            if let cached = results[key], cached.signature == signature { return cached }
            guard context.wantsReply else {
                pending[key] = nil
                let previous = results[key]
                let none = SuggestionSnapshot(status: .none, signature: signature)
                results[key] = none
                withdrawn = previous != nil && previous?.status != SuggestionSnapshot.Status.none
                return none
            }
            if let running, running.key == key, running.signature == signature {
                return SuggestionSnapshot(status: .pending, signature: signature)
            }
            order += 1
            pending[key] = Job(context: context, signature: signature, order: order)
            results[key] = nil
            if !workerActive {
                workerActive = true
                Task.detached(executorPreference: ModelExecutor.suggestions) { [self] in await self.work() }
            }
            return SuggestionSnapshot(status: .pending, signature: signature)
        }
        if withdrawn { await publish(key, snapshot) }
        return snapshot
    }

    /// The current snapshot for a key, if any request was made.
    public func snapshot(for key: Key) -> SuggestionSnapshot? {
        withLock {
            if let result = results[key] { return result }
            if let signature = latest[key] { return SuggestionSnapshot(status: .pending, signature: signature) }
            return nil
        }
    }

    /// Returns once no generation is queued or running.
    public func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = withLock {
                if !workerActive { return true }
                idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func work() async {
        while let job = nextJob() {
            let key = Key(user: job.context.user.id, cid: job.context.channel.cid)
            var suggestions: [String]?
            do {
                if let publishPartial {
                    suggestions = try await suggester?.suggestions(for: job.context) { [self] replies in
                        let chips = Self.clean(replies, context: job.context)
                        guard !chips.isEmpty, withLock({ latest[key] == job.signature }) else { return }
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
            let current: Bool = withLock {
                running = nil
                guard latest[key] == job.signature else { return false }  // the conversation moved on
                results[key] = snapshot
                return true
            }
            if current { await publish(key, snapshot) }
        }
    }

    /// Takes the most recently requested job that is still current, or marks the worker idle.
    private func nextJob() -> Job? {
        var waiters: [CheckedContinuation<Void, Never>] = []
        let job: Job? = withLock {
            while let (key, job) = pending.max(by: { $0.value.order < $1.value.order }) {
                pending[key] = nil
                guard latest[key] == job.signature else { continue }
                running = (key, job.signature)
                generations += 1
                return job
            }
            workerActive = false
            waiters = idleWaiters
            idleWaiters = []
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

    private func withLock<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
