import ChatStore
import Foundation
import FoundationModels
import Markdown
import ServerKit

/// One assistant turn's decisions, without a model, tasks, clock or store: the engine feeds it
/// what happened (text written, the work's end, the store's answer) and sends what it returns.
///
/// ```
/// writing ──progress──▶ writing            (a frame when one is due)
/// writing ──ended─────▶ storing            (finished or stopped: the text to store)
///         └───────────▶ over(.failed)      (an error: nothing stored)
/// storing ──stored────▶ over(.done | .stopped)
///         └─failed────▶ over(.failed, not_found)
/// ```
///
/// A step out of order (progress after the end, a second end) changes nothing.
package struct AssistantTurn: Sendable {
    package enum Phase: Equatable, Sendable {
        case writing
        /// The work ended; what it wrote awaits the store.
        case storing
        /// The last frame is ready (``view``).
        case over
    }

    /// How the work ended.
    package enum Ending {
        case finished(String, LanguageModelSession.Usage?)
        /// Cancelled (Stop): what was written so far is kept, marked stopped.
        case cancelled
        case failed(any Error)
    }

    /// What the engine stores for a turn that ended well or was stopped.
    package struct Outcome: Equatable, Sendable {
        package var text: String
        package var inputTokens: Int?
        package var outputTokens: Int
        package var stopped: Bool
    }

    package private(set) var phase = Phase.writing
    /// The turn as its frames show it; complete once ``phase`` is `.over`.
    package private(set) var view: AssistantTurnView
    private let interval: TimeInterval
    private var lastFrame: Date?

    package init(id: String, kind: AssistantTurnView.Kind, frameInterval: TimeInterval) {
        view = AssistantTurnView(id: id, kind: kind, status: .streaming, text: "", html: "", output_tokens: 0)
        interval = frameInterval
    }

    /// The work wrote `text` (all of it so far, `tokens` long) at `now`: the streaming frame to
    /// send, or nil when one was sent less than the frame interval ago.
    package mutating func progress(_ text: String, tokens: Int, at now: Date) -> AssistantTurnView? {
        guard phase == .writing else { return nil }
        view.text = text
        view.output_tokens = tokens
        if let lastFrame, now.timeIntervalSince(lastFrame) < interval { return nil }
        lastFrame = now
        view.html = MarkdownRenderer.html(for: text)
        return view
    }

    /// The work ended: what to store, or nil when the turn failed (its frame is ready).
    package mutating func end(_ ending: Ending) -> Outcome? {
        guard phase == .writing else { return nil }
        switch ending {
        case .finished(let text, let usage):
            view.text = text
            if let usage {
                view.output_tokens = usage.output.totalTokenCount
                view.input_tokens = usage.input.totalTokenCount
                view.cached_tokens = usage.input.cachedTokenCount
            }
            view.status = .done
        case .cancelled:
            view.status = .stopped
        case .failed(let error):
            let (code, message) = AssistantErrorText.describe(error)
            view.status = .failed
            view.error = message
            view.error_code = code
        }
        view.html = MarkdownRenderer.html(for: view.text)
        guard view.status != .failed else {
            phase = .over
            return nil
        }
        phase = .storing
        return Outcome(
            text: view.text, inputTokens: view.input_tokens, outputTokens: view.output_tokens,
            stopped: view.status == .stopped)
    }

    /// The outcome was stored as `message` (nil for what is shown and not stored: a summary).
    package mutating func stored(_ message: AssistantMessage?) {
        guard phase == .storing else { return }
        view.message = message.map(AssistantMessageView.init)
        phase = .over
    }

    /// The outcome could not be stored: the conversation was deleted meanwhile.
    package mutating func storeFailed() {
        guard phase == .storing else { return }
        view.status = .failed
        view.error = "The conversation is gone; the answer was not kept."
        view.error_code = "not_found"
        phase = .over
    }
}

/// Which turns are running, by conversation and owner, and whether another may start: one per
/// conversation (409), at most `maxPerOwner` per user (429). No tasks: the engine keeps each
/// turn's task beside its entry here.
package struct TurnBook<Handle>: Sendable where Handle: Sendable {
    package struct Entry: Sendable {
        package var id: String
        package var owner: UserID
        package var handle: Handle
    }

    package let maxPerOwner: Int
    package let retrySeconds: Int
    private var running: [String: Entry] = [:]

    package init(maxPerOwner: Int, retrySeconds: Int) {
        self.maxPerOwner = maxPerOwner
        self.retrySeconds = retrySeconds
    }

    package var isEmpty: Bool { running.isEmpty }

    package func entry(for conversationID: String) -> Entry? { running[conversationID] }

    /// The 429 an owner with ``maxPerOwner`` turns running gets, or nil.
    package func refusal(for owner: UserID) -> APIError? {
        // Each turn holds a model request (on a fallback, a connection to its endpoint): one
        // user's turns across many conversations must not take them all.
        let count = running.values.reduce(0) { $0 + ($1.owner == owner ? 1 : 0) }
        guard count >= maxPerOwner else { return nil }
        return APIError(
            status: 429, code: "too_many_turns",
            message:
                "you already have \(count) answers being written (at most \(maxPerOwner) at once); wait for one to finish or stop it",
            retryAfter: retrySeconds)
    }

    /// Notes turn `id` of `owner` as running in `conversationID`, with the handle `start`
    /// makes; `start` is called only when the turn is admitted.
    ///
    /// - Throws: `APIError` 409 when the conversation already has one, 429 when the owner is at
    ///   the limit.
    package mutating func admit(
        _ id: String, owner: UserID, in conversationID: String, start: () -> Handle
    ) throws {
        guard running[conversationID] == nil else {
            throw APIError(
                status: 409, code: "answering",
                message: "this conversation is still answering; wait for it or stop it first")
        }
        if let refusal = refusal(for: owner) { throw refusal }
        running[conversationID] = Entry(id: id, owner: owner, handle: start())
    }

    /// Forgets the conversation's turn if it is still `turnID` (a later turn is left alone).
    package mutating func remove(_ turnID: String, in conversationID: String) {
        if running[conversationID]?.id == turnID { running[conversationID] = nil }
    }
}
