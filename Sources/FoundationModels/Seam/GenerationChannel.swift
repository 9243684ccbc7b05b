import Synchronization

/// Where an executor streams what the model produces, as events (as in the iOS 27 SDK): response
/// text with token counts, tool calls, reasoning, usage and metadata.
///
/// ```swift
/// await channel.send(.response(action: .appendText("Hello", tokenCount: 1)))
/// await channel.send(.toolCalls(action: .toolCall(
///     id: "call-1", name: "getWeather", action: .appendArguments(#"{"city": "Paris"}"#, tokenCount: 8))))
/// ```
///
/// The session reads the channel while the executor writes it; sending never waits for the
/// reader. Events sent after the session stopped reading (a cancelled request) are still applied
/// when the executor returns, so the usage of a cancelled request counts every token generated.
public struct LanguageModelExecutorGenerationChannel: AsyncSequence, Sendable {
    public typealias Element = Event
    public typealias Failure = any Error

    private let buffer: ChannelBuffer

    /// A new, open channel.
    public init() {
        buffer = ChannelBuffer()
    }

    /// Sends an event to the session.
    nonisolated(nonsending) public func send(_ event: Event) async {
        buffer.push(event)
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(buffer: buffer)
    }

    /// Ends the channel (after the executor returned), with the executor's error if it threw.
    package func finish(throwing error: (any Error)? = nil) {
        buffer.finish(error)
    }

    /// The events sent and not read yet, without waiting.
    package func drain() -> [Event] {
        buffer.drain()
    }

    /// Reads a channel's events in order; throws the executor's error at the end if it threw.
    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate let buffer: ChannelBuffer

        public mutating func next() async throws -> Event? {
            try await buffer.next()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> Event? {
            try await buffer.next()
        }
    }
}

/// The queue behind a channel: the executor pushes, one session task reads.
private final class ChannelBuffer: Sendable {
    private struct State {
        var events: [LanguageModelExecutorGenerationChannel.Event] = []
        var next = 0
        var finished = false
        var failure: (any Error)?
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func push(_ event: LanguageModelExecutorGenerationChannel.Event) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.finished else { return nil }
            state.events.append(event)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func finish(_ error: (any Error)?) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.finished else { return nil }
            state.finished = true
            state.failure = error
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func drain() -> [LanguageModelExecutorGenerationChannel.Event] {
        state.withLock { state in
            defer {
                state.events = []
                state.next = 0
            }
            return Array(state.events[state.next...])
        }
    }

    /// The next event; nil at the end; throws the executor's error at the end, or
    /// `CancellationError` when the reading task is cancelled.
    func next() async throws -> (LanguageModelExecutorGenerationChannel.Event)? {
        while true {
            enum Step {
                case event(LanguageModelExecutorGenerationChannel.Event)
                case end((any Error)?)
                case wait
            }
            let step = state.withLock { state -> Step in
                if state.next < state.events.count {
                    defer {
                        state.next += 1
                        // Drop what has been read once in a while, so a long response does not
                        // keep every event.
                        if state.next >= 256 {
                            state.events.removeFirst(state.next)
                            state.next = 0
                        }
                    }
                    return .event(state.events[state.next])
                }
                return state.finished ? .end(state.failure) : .wait
            }
            switch step {
            case .event(let event):
                return event
            case .end(let failure):
                if let failure { throw failure }
                return nil
            case .wait:
                try Task.checkCancellation()
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let ready = state.withLock { state -> Bool in
                            if state.next < state.events.count || state.finished || Task.isCancelled { return true }
                            state.waiter = continuation
                            return false
                        }
                        if ready { continuation.resume() }
                    }
                } onCancel: {
                    state.withLock { state in
                        defer { state.waiter = nil }
                        return state.waiter
                    }?.resume()
                }
                try Task.checkCancellation()
            }
        }
    }
}
