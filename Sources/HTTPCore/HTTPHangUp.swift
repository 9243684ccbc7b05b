import Synchronization

/// Tells the handler of a request that its client went away while the answer was being made, so
/// that long work for one whole answer (an unstreamed completion) can stop: the connection keeps
/// reading while the handler runs, only to see its client's side end.
///
/// A client that closes, resets, or shuts its sending side (a half-close) before the answer
/// counts as gone, as for a streamed body (`HTTPBodyStream.onHangUp`). The answer is still
/// written when it comes, for a client that only half-closed.
public final class HTTPHangUp: Sendable {
    private let state = Mutex<(hungUp: Bool, handlers: [@Sendable () -> Void])>((false, []))

    public init() {}

    /// Whether the client has gone.
    public var hasHungUp: Bool { state.withLock { $0.hungUp } }

    /// Runs `handler` once when the client goes (at once, on this thread, if it already has). It
    /// runs on the connection's I/O thread: keep it short (cancel a task, set a flag).
    public func onHangUp(_ handler: @escaping @Sendable () -> Void) {
        let already = state.withLock { state -> Bool in
            if state.hungUp { return true }
            state.handlers.append(handler)
            return false
        }
        if already { handler() }
    }

    /// The client went; runs the handlers (the first time only).
    func signal() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.hungUp else { return [] }
            state.hungUp = true
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler() }
    }
}
