import Synchronization

/// The shared state of a response stream: the changes to the response text so far, then the
/// outcome. The generating task writes it; iterators and `collect()` read it.
package final class ResponseStreamCore: Sendable {
    fileprivate struct State {
        var changes: [TurnAccumulator.TextChange] = []
        var outcome: Result<LanguageModelSession.RawResponse, any Swift.Error>?
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    let isStructured: Bool
    let responseID: GenerationID
    private let state = Mutex(State())

    init(isStructured: Bool, responseID: GenerationID) {
        self.isStructured = isStructured
        self.responseID = responseID
    }

    /// The changes after the first `count`, and the outcome if there is one.
    func changes(after count: Int) -> (
        ArraySlice<TurnAccumulator.TextChange>, Result<LanguageModelSession.RawResponse, any Swift.Error>?
    ) {
        state.withLock { state in
            (state.changes[min(count, state.changes.count)...], state.outcome)
        }
    }

    /// Adds a change to the response text.
    @Sendable func update(_ change: TurnAccumulator.TextChange) {
        let waiters = state.withLock { state in
            state.changes.append(change)
            return state.takeWaiters()
        }
        waiters.forEach { $0.resume() }
    }

    /// Records the outcome; later calls are ignored.
    func finish(_ outcome: Result<LanguageModelSession.RawResponse, any Swift.Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.outcome == nil else { return [] }
            state.outcome = outcome
            return state.takeWaiters()
        }
        waiters.forEach { $0.resume() }
    }

    var isFinished: Bool { state.withLock { $0.outcome != nil } }

    /// The finished response, waiting for it if needed.
    ///
    /// - Throws: its error, or `CancellationError` when the waiting task is cancelled.
    func result() async throws -> LanguageModelSession.RawResponse {
        while true {
            let (count, outcome) = state.withLock { ($0.changes.count, $0.outcome) }
            if let outcome { return try outcome.get() }
            await waitForChange(beyond: count)
            try Task.checkCancellation()
        }
    }

    /// Returns when there are more than `count` changes, the stream has finished, or the task
    /// is cancelled.
    func waitForChange(beyond count: Int) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    if state.changes.count > count || state.outcome != nil || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}

extension ResponseStreamCore.State {
    fileprivate mutating func takeWaiters() -> [CheckedContinuation<Void, Never>] {
        defer { waiters = [:] }
        return Array(waiters.values)
    }
}

/// Who is reading a stream, and the task generating it: the task is cancelled when nobody reads
/// the stream any more. Held by the stream and its iterators (never by the generating task), so
/// its deinit means the stream is gone.
package final class StreamHandle: Sendable {
    private struct Control {
        var task: Task<Void, Never>?
        var readers = 0
        var hadReader = false
        var collects = 0
    }

    let core: ResponseStreamCore
    private let control = Mutex(Control())

    init(core: ResponseStreamCore) {
        self.core = core
    }

    deinit {
        // Nothing can read the stream any more.
        control.withLock { $0.task }?.cancel()
    }

    func attach(_ task: Task<Void, Never>) {
        control.withLock { $0.task = task }
    }

    func readerStarted() {
        control.withLock { control in
            control.readers += 1
            control.hadReader = true
        }
    }

    /// A reader went away; `completed` when it had read to the end.
    func readerEnded(completed: Bool) {
        let task = control.withLock { control -> Task<Void, Never>? in
            control.readers -= 1
            return !completed && control.readers == 0 && control.collects == 0 ? control.task : nil
        }
        if let task, !core.isFinished { task.cancel() }
    }

    func collectStarted() {
        control.withLock { $0.collects += 1 }
    }

    func collectEnded() {
        let task = control.withLock { control -> Task<Void, Never>? in
            control.collects -= 1
            // A collect that ends by cancellation stops the generation too, when nobody reads.
            return control.collects == 0 && control.readers == 0 ? control.task : nil
        }
        if let task, !core.isFinished, Task.isCancelled { task.cancel() }
    }
}

/// One iterator's hold on a stream: its deinit tells the handle that this reader is gone.
final class StreamReader: Sendable {
    private let handle: StreamHandle
    private let completed = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)

    init(handle: StreamHandle) {
        self.handle = handle
        handle.readerStarted()
    }

    /// The reader read to the end.
    func reachedEnd() {
        completed.store(true, ordering: .relaxed)
    }

    /// The reader's task was cancelled: stop now rather than when the iterator goes away.
    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        handle.readerEnded(completed: completed.load(ordering: .relaxed))
    }

    deinit {
        if !stopped.load(ordering: .relaxed) {
            handle.readerEnded(completed: completed.load(ordering: .relaxed))
        }
    }
}
