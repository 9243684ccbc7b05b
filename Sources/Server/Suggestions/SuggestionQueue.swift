import ChatStore

/// What the suggestion scheduler decides, without I/O: which conversations wait for chips,
/// which run, which result is still current. ``SuggestionScheduler`` holds one behind a lock and
/// does what its answers say (start a worker, call the model, publish); the tests drive it alone.
///
/// The rules:
/// - Only the newest request per key (user, channel) is kept while waiting; across keys the most
///   recently requested runs first.
/// - At most `maxRunning` generations run at once (the engine decodes them in one batch).
/// - A result is kept and published only if its conversation has not moved on meanwhile.
/// - A request whose signature matches the kept result is answered from it; one that matches a
///   running generation is answered `.pending` without queueing another.
/// - A conversation whose last message is the user's own gets `.none`, and the chips it had are
///   withdrawn.
struct SuggestionQueue {
    typealias Key = SuggestionScheduler.Key

    /// One queued or running generation.
    struct Job {
        var context: ReplyContext
        var signature: String
        var order: Int
        var key: Key { Key(user: context.user.id, cid: context.channel.cid, thread: context.thread) }
    }

    /// The answer to a request.
    struct Submission: Equatable {
        var snapshot: SuggestionSnapshot
        /// Start a worker: a job was queued and fewer than `maxRunning` workers are running.
        var startsWorker = false
        /// Publish `snapshot`: the chips shown so far are withdrawn (the user spoke).
        var withdraws = false
    }

    /// How many generations run at once.
    let maxRunning: Int
    private var latest: [Key: String] = [:]
    private var results: [Key: SuggestionSnapshot] = [:]
    private var pending: [Key: Job] = [:]
    private var running: [Key: String] = [:]
    private var order = 0
    /// Workers started and not yet idle.
    private(set) var workers = 0
    /// Generations handed out so far.
    private(set) var generations = 0

    init(maxRunning: Int = 1) {
        self.maxRunning = max(1, maxRunning)
    }

    /// Whether no generation is queued or running.
    var isIdle: Bool { workers == 0 }

    /// Generations waiting for a worker, and running.
    var load: (queued: Int, running: Int) {
        (pending.keys.filter { running[$0] == nil }.count, running.count)
    }

    /// A request for chips answering `signature` (the conversation as it is now).
    mutating func submit(key: Key, signature: String, wantsReply: Bool, context: ReplyContext) -> Submission {
        latest[key] = signature
        if let kept = results[key], kept.signature == signature { return Submission(snapshot: kept) }
        guard wantsReply else {
            pending[key] = nil
            let previous = results[key]
            let none = SuggestionSnapshot(status: .none, signature: signature)
            results[key] = none
            let withdraws = previous != nil && previous?.status != SuggestionSnapshot.Status.none
            return Submission(snapshot: none, withdraws: withdraws)
        }
        let waiting = SuggestionSnapshot(status: .pending, signature: signature)
        if running[key] == signature { return Submission(snapshot: waiting) }
        order += 1
        pending[key] = Job(context: context, signature: signature, order: order)
        results[key] = nil
        let runnable = load.queued + load.running
        guard workers < maxRunning, workers < runnable else {
            return Submission(snapshot: waiting)
        }
        workers += 1
        return Submission(snapshot: waiting, startsWorker: true)
    }

    /// The next job for a worker: the most recently requested one still current and not already
    /// running for its key; nil retires the worker.
    mutating func next() -> Job? {
        while let (key, job) = pending.filter({ running[$0.key] == nil }).max(by: { $0.value.order < $1.value.order }) {
            pending[key] = nil
            guard latest[key] == job.signature else { continue }
            running[key] = job.signature
            generations += 1
            return job
        }
        workers -= 1
        return nil
    }

    /// Whether chips for `signature` still answer the conversation (partial chips are shown only
    /// then).
    func isCurrent(_ key: Key, _ signature: String) -> Bool { latest[key] == signature }

    /// The job's outcome: kept, and true (publish it), when its conversation has not moved on.
    mutating func finish(_ job: Job, with snapshot: SuggestionSnapshot) -> Bool {
        running[job.key] = nil
        guard latest[job.key] == job.signature else { return false }
        results[job.key] = snapshot
        return true
    }

    /// Where the key stands: its kept result, or pending while one was asked for.
    func snapshot(for key: Key) -> SuggestionSnapshot? {
        if let result = results[key] { return result }
        if let signature = latest[key] { return SuggestionSnapshot(status: .pending, signature: signature) }
        return nil
    }
}
