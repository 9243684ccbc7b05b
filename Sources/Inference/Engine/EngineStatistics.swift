import Synchronization

/// What an engine is doing, for `/api/health` or a metrics endpoint: readable from any thread
/// at any time (the engine's loop writes it after each step).
public struct EngineStatus: Sendable, Equatable {
    /// Requests waiting for a slot.
    public var queued = 0
    /// Requests on a slot (reading their prompt or generating).
    public var running = 0
    /// Requests in the last forward step.
    public var lastBatchSize = 0
    /// Rows (tokens) of the last forward step.
    public var lastBatchRows = 0
    /// The most requests one forward step has run since the engine started.
    public var largestBatchSize = 0
    /// Tokens generated per second over the last few seconds of steps (all requests together).
    public var tokensPerSecond: Double = 0
    /// Forward steps and tokens generated since the engine started.
    public var steps = 0
    public var generatedTokens = 0
    /// Time spent in forward passes since the engine started (the rest of a busy engine's time
    /// is deciding tokens and handing them out).
    public var forwardTime: Duration = .zero
}

/// The engine's counters: written by its loop, read by anyone.
final class EngineStatistics: Sendable {
    private struct State {
        var status = EngineStatus()
        /// Recent steps: when they ended and how many tokens they generated.
        var recent: [(end: ContinuousClock.Instant, generated: Int)] = []
    }

    private let state = Mutex(State())
    /// The span `tokensPerSecond` covers.
    static let window: Duration = .seconds(5)

    var status: EngineStatus { state.withLock { $0.status } }

    func record(step: Duration, rows: Int, sequences: Int, generated: Int, queued: Int, running: Int) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.status.queued = queued
            state.status.running = running
            state.status.lastBatchSize = sequences
            state.status.largestBatchSize = max(state.status.largestBatchSize, sequences)
            state.status.lastBatchRows = rows
            state.status.steps += 1
            state.status.forwardTime += step
            state.status.generatedTokens += generated
            state.recent.append((now, generated))
            state.recent.removeAll { now - $0.end > Self.window }
            let first = state.recent.first!.end
            // Over the window's steps; a single step counts by its own duration.
            let span = max(now - first, step)
            let tokens = state.recent.dropFirst(state.recent.count > 1 ? 1 : 0).reduce(0) { $0 + $1.generated }
            state.status.tokensPerSecond = GenerationSummary.rate(tokens, span)
        }
    }

    /// The queue changed without a step (a request arrived or left while idle).
    func record(queued: Int, running: Int) {
        state.withLock { state in
            state.status.queued = queued
            state.status.running = running
        }
    }
}
