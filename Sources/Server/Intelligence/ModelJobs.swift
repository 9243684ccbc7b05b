import ChatIntelligence
import ChatStore
import Foundation
import ServerKit

/// What a model job has produced so far (each field for the kinds that make it).
struct JobResult: Encodable, Sendable, Equatable {
    /// The model that produced the result: the local model's name, or the fallback's
    /// ("m at http://host/v1").
    var model: String?
    /// Writing tools, translations, summaries: the text so far.
    var text: String?
    /// Translations: the target language's code.
    var language: String?
    /// Search suggestions: the terms so far.
    var terms: [String]?
    /// Date actions: the resolved event…
    var event: EventFields?
    /// …as an iCalendar file, and the name to save it under.
    var ics: String?
    var filename: String?

    struct EventFields: Encodable, Sendable, Equatable {
        var title: String
        var start: Timestamp
        var end: Timestamp
        var all_day: Bool
        var location: String?
        var time_zone: String
    }
}

/// Where one job stands, as the API and the `job.updated` frames show it.
struct JobSnapshot: Encodable, Sendable, Equatable {
    enum Status: String, Encodable, Sendable, CaseIterable {
        case queued, running, done, failed, cancelled
        var isFinished: Bool { self == .done || self == .failed || self == .cancelled }
    }

    var id: String
    var kind: String
    var status: Status
    var result: JobResult?
    /// Why it failed, in words for the user.
    var error: String?
}

/// Model work a user asked for, run in the background one job at a time, its progress pushed
/// to the user's sockets as `{"type": "job.updated", "job": …}` frames (outside the event log)
/// and readable with `GET /api/jobs/{id}`.
///
/// - Jobs run in the order they were started, ``workers`` at a time (one, unless the features
///   run on a pool of inference servers that can take more), on their own thread
///   (``ModelExecutor/jobs``); reply suggestions run beside them on theirs.
/// - A user has at most ``perUserLimit`` unfinished jobs; finished ones are kept for
///   ``retention`` so a client that missed the last frame can still read the result.
/// - Cancelling a queued job drops it; cancelling a running one cancels its task (the model's
///   stream is abandoned).
final class ModelJobs: @unchecked Sendable {
    // @unchecked Sendable: `jobs`, `queue`, `activeWorkers` are only touched inside `lock`.

    /// Produces a job's result, reporting progress through `update` (each call replaces the
    /// result so far).
    typealias Work = @Sendable (_ update: @escaping @Sendable (JobResult) -> Void) async throws -> JobResult

    static let perUserLimit = 4
    static let retention: TimeInterval = 600
    /// Progress frames are sent at most this often per job (the last one always).
    static let frameInterval: TimeInterval = 0.08

    private struct Job {
        var owner: UserID
        var snapshot: JobSnapshot
        var work: Work?
        var task: Task<JobResult, any Error>?
        var finishedAt: Date?
        var lastFrame = Date.distantPast
    }

    private let lock = NSLock()
    private var jobs: [String: Job] = [:]
    private var queue: [String] = []
    private var activeWorkers = 0
    /// How many jobs run at once.
    let workers: Int
    private let publish: @Sendable (UserID, JobSnapshot) -> Void
    private let describe: @Sendable (any Error) -> String

    /// `publish` sends a snapshot to its owner's sockets; `describe` words a failure for the user.
    init(
        workers: Int = 1,
        publish: @escaping @Sendable (UserID, JobSnapshot) -> Void,
        describe: @escaping @Sendable (any Error) -> String = ModelJobs.describe
    ) {
        self.workers = max(1, workers)
        self.publish = publish
        self.describe = describe
    }

    /// Jobs whose snapshots go to their owners' sockets as `job.updated` frames.
    convenience init(live: some LiveFrames, workers: Int = 1) {
        self.init(workers: workers) { user, snapshot in live.send(JobFrame(job: snapshot), to: user) }
    }

    /// Queues `work` for `user`.
    ///
    /// - Throws: `APIError` 429 when the user already has ``perUserLimit`` unfinished jobs.
    func start(_ kind: String, for user: UserID, work: @escaping Work) throws -> JobSnapshot {
        let id = Self.makeID()
        let snapshot = JobSnapshot(id: id, kind: kind, status: .queued)
        let startWorker: Bool = try withLock {
            prune()
            let unfinished = jobs.values.filter { $0.owner == user && !$0.snapshot.status.isFinished }.count
            guard unfinished < Self.perUserLimit else {
                throw APIError(
                    status: 429, code: "too_many_jobs",
                    message:
                        "you have \(unfinished) model requests in progress; wait for one to finish or cancel it (DELETE /api/jobs/{id})"
                )
            }
            jobs[id] = Job(owner: user, snapshot: snapshot, work: work)
            queue.append(id)
            if activeWorkers >= workers { return false }
            activeWorkers += 1
            return true
        }
        if startWorker {
            Task.detached(executorPreference: ModelExecutor.jobs) { [self] in await self.runQueue() }
        }
        return snapshot
    }

    /// The job `id` of `user`; another user's job is not found, as a missing one.
    func snapshot(_ id: String, for user: UserID) throws -> JobSnapshot {
        try withLock {
            guard let job = jobs[id], job.owner == user else { throw ChatStoreError.notFound(what: "job", id: id) }
            return job.snapshot
        }
    }

    /// Cancels job `id` of `user` (a finished job stays as it is).
    func cancel(_ id: String, for user: UserID) throws -> JobSnapshot {
        let (snapshot, changed): (JobSnapshot, Bool) = try withLock {
            guard var job = jobs[id], job.owner == user else { throw ChatStoreError.notFound(what: "job", id: id) }
            guard !job.snapshot.status.isFinished else { return (job.snapshot, false) }
            if job.snapshot.status == .queued { queue.removeAll { $0 == id } }
            job.task?.cancel()
            job.snapshot.status = .cancelled
            job.work = nil
            job.finishedAt = Date()
            jobs[id] = job
            return (job.snapshot, true)
        }
        if changed { publish(user, snapshot) }
        return snapshot
    }

    /// Returns once no job is queued or running (for tests).
    func waitUntilIdle(timeout: TimeInterval = 120) async {
        let deadline = Date().addingTimeInterval(timeout)
        while withLock({ activeWorkers > 0 }), Date() < deadline { try? await Task.sleep(for: .milliseconds(10)) }
    }

    private func runQueue() async {
        while let (id, owner, work) = next() {
            let task = Task<JobResult, any Error>(executorPreference: ModelExecutor.jobs) { [self] in
                try await work { [self] partial in self.progress(id, partial) }
            }
            let started: JobSnapshot? = withLock {
                guard var job = jobs[id], job.snapshot.status == .queued else { return nil }
                job.snapshot.status = .running
                job.task = task
                jobs[id] = job
                return job.snapshot
            }
            guard let started else {
                task.cancel()
                continue
            }
            publish(owner, started)
            let outcome: Result<JobResult, any Error>
            do {
                outcome = .success(try await task.value)
            } catch {
                outcome = .failure(error)
            }
            let finished: JobSnapshot? = withLock {
                guard var job = jobs[id], job.snapshot.status == .running else { return nil }  // cancelled meanwhile
                switch outcome {
                case .success(let result):
                    job.snapshot.status = .done
                    job.snapshot.result = result
                case .failure(let error) where error is CancellationError:
                    job.snapshot.status = .cancelled
                case .failure(let error):
                    job.snapshot.status = .failed
                    job.snapshot.error = describe(error)
                }
                job.task = nil
                job.work = nil
                job.finishedAt = Date()
                jobs[id] = job
                return job.snapshot
            }
            if let finished { publish(owner, finished) }
        }
    }

    /// The next queued job, or marks the worker gone.
    private func next() -> (String, UserID, Work)? {
        withLock {
            while !queue.isEmpty {
                let id = queue.removeFirst()
                if let job = jobs[id], job.snapshot.status == .queued, let work = job.work {
                    return (id, job.owner, work)
                }
            }
            activeWorkers -= 1
            return nil
        }
    }

    private func progress(_ id: String, _ partial: JobResult) {
        let update: (UserID, JobSnapshot)? = withLock {
            guard var job = jobs[id], job.snapshot.status == .running else { return nil }
            job.snapshot.result = partial
            let now = Date()
            let due = now.timeIntervalSince(job.lastFrame) >= Self.frameInterval
            if due { job.lastFrame = now }
            jobs[id] = job
            return due ? (job.owner, job.snapshot) : nil
        }
        if let update { publish(update.0, update.1) }
    }

    /// Drops finished jobs older than ``retention``.
    private func prune() {
        let cutoff = Date().addingTimeInterval(-Self.retention)
        jobs = jobs.filter { _, job in job.finishedAt.map { $0 > cutoff } ?? true }
    }

    static func makeID() -> String {
        (0..<2).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined(separator: "-")
    }

    /// A failure in words for the user: the model's own errors by case, anything else generic
    /// (the detail goes to the log).
    static let describe: @Sendable (any Error) -> String = { error in
        if let failure = error as? JobFailure { return failure.message }
        Router.standardErrorLog("model job failed: \(error)")
        // A model's errors say why in words (`failureReason`); their enum case names are for the log.
        let localized = error as? any LocalizedError
        let reason = localized?.failureReason ?? localized?.errorDescription ?? String(describing: error)
        return "The model could not finish this request: \(reason.prefix(200))"
    }

    private func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

/// A job that ends without a result for a reason the user should read ("no date in this
/// message").
struct JobFailure: Error {
    var message: String
}
