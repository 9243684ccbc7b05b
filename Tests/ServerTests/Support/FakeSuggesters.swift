import ChatStore
import Foundation
import TestSupport

@testable import Server

/// A suggester that holds every call until released, and records what it was asked.
final class GatedSuggester: ReplySuggester, @unchecked Sendable {
    // @unchecked Sendable: mutable state is only touched inside `lock`.
    private let lock = NSLock()
    private var calls: [ReplyContext] = []
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var isOpen = false
    private let reply: @Sendable (ReplyContext) -> [String]?

    init(
        open: Bool = false,
        reply: @escaping @Sendable (ReplyContext) -> [String]? = { context in
            ["Reply to \(context.recentMessages.last?.text ?? "")", "Sure!", "Maybe later"]
        }
    ) {
        self.isOpen = open
        self.reply = reply
    }

    var askedFor: [ReplyContext] {
        lock.lock()
        defer { lock.unlock() }
        return calls
    }

    func suggestions(for context: ReplyContext) async throws -> [String]? {
        let mustWait: Bool = {
            lock.lock()
            defer { lock.unlock() }
            calls.append(context)
            return !isOpen
        }()
        if mustWait {
            await withCheckedContinuation { continuation in
                lock.lock()
                if isOpen {
                    lock.unlock()
                    continuation.resume()
                } else {
                    waiting.append(continuation)
                    lock.unlock()
                }
            }
        }
        return reply(context)
    }

    /// Lets every held and future call finish.
    func release() {
        lock.lock()
        isOpen = true
        let held = waiting
        waiting = []
        lock.unlock()
        held.forEach { $0.resume() }
    }

    /// Suspends until at least `count` calls were made; throws after `timeout` seconds, so a
    /// call that never comes fails the test instead of hanging it.
    func waitForCalls(_ count: Int, timeout: Double = 30) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while askedFor.count < count {
            guard Date() < deadline else {
                throw SocketError(
                    description: "the suggester got \(askedFor.count) of \(count) calls within \(timeout) s")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// Records what the scheduler publishes.
final class PublishedLog: @unchecked Sendable {
    // @unchecked Sendable: `entries` is only touched inside `lock`.
    private let lock = NSLock()
    private var entries: [(SuggestionScheduler.Key, SuggestionSnapshot)] = []

    func record(_ key: SuggestionScheduler.Key, _ snapshot: SuggestionSnapshot) {
        lock.lock()
        entries.append((key, snapshot))
        lock.unlock()
    }

    var all: [(key: SuggestionScheduler.Key, snapshot: SuggestionSnapshot)] {
        lock.lock()
        defer { lock.unlock() }
        return entries.map { (key: $0.0, snapshot: $0.1) }
    }
}

/// Builds reply contexts without a database.
enum ContextFactory {
    static let alice = User(id: "alice", name: "Alice", createdAt: .now, updatedAt: .now)
    static let bob = User(id: "bob", name: "Bob", createdAt: .now, updatedAt: .now)

    static func context(
        for user: User = alice, channel id: String = "hike", messages: [(User, String)], tone: Tone? = nil
    ) -> ReplyContext {
        let cid = ChannelID(type: "messaging", id: id)
        let channel = Channel(cid: cid, name: id, createdBy: alice.id, createdAt: .now, lastMessageAt: nil)
        let list = messages.enumerated().map { index, pair in
            Message(
                id: MessageID(rawValue: "\(id)-\(index)-\(pair.1.hashValue)"), cid: cid, author: pair.0.id,
                text: pair.1, createdAt: .now)
        }
        return ReplyContext(user: user, channel: channel, participants: [alice, bob], recentMessages: list, tone: tone)
    }
}
