import Foundation

/// Threads of their own, each owning one `Resource` (a database connection, say, or nothing),
/// that run blocking work for async callers: a caller awaits `run`, one free thread runs the
/// work with its resource, and the caller resumes with the outcome. No thread of Swift's
/// cooperative pool ever waits for the work.
///
/// This is the one place the process turns blocking calls (SQLite, file I/O, model loading, OCR)
/// into async ones. The work must not await anything: it runs to its end on the thread.
///
/// ```swift
/// let files = WorkerThreads(name: "sotto.files", count: 2)
/// let data = try await files.run { try Data(contentsOf: url) }
/// ```
public final class WorkerThreads<Resource>: @unchecked Sendable {
    // @unchecked Sendable: `jobs`, `head`, `stopped` and `running` are only touched while holding
    // `condition`; each resource is used only by the thread it was given to.

    private let condition = NSCondition()
    private var jobs: [(Resource) -> Void] = []
    private var head = 0
    private var stopped = false
    private var running = 0
    public let name: String

    /// Starts one thread per resource, named `name.0`, `name.1`, ….
    public init(name: String, resources: [Resource], stackSize: Int = 4 << 20) {
        precondition(!resources.isEmpty, "WorkerThreads needs at least one thread")
        self.name = name
        running = resources.count
        for (index, resource) in resources.enumerated() {
            let box = ResourceBox(resource)
            let thread = Thread { [self] in self.loop(box.take()) }
            thread.stackSize = stackSize
            thread.name = "\(name).\(index)"
            thread.start()
        }
    }

    /// Runs `work` on one of the threads with its resource; the caller waits without holding
    /// a thread. Work queued after `stop()` throws `WorkerThreadsStopped`.
    public func run<T: Sendable>(_ work: @escaping @Sendable (Resource) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let queued = enqueue { resource in continuation.resume(with: Result { try work(resource) }) }
            if !queued { continuation.resume(throwing: WorkerThreadsStopped(name: name)) }
        }
    }

    /// Queues `job` for a thread; false when stopped. The job runs on the thread and must not
    /// block on anything that waits for these threads.
    @discardableResult
    public func enqueue(_ job: @escaping (Resource) -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Lets the threads finish what is queued, then end. Returns at once; the threads end on
    /// their own.
    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Jobs waiting for a thread (for tests and stats).
    public var queuedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head
    }

    private func loop(_ resource: Resource) {
        while true {
            condition.lock()
            while head == jobs.count && !stopped { condition.wait() }
            if head == jobs.count {
                running -= 1
                condition.unlock()
                return
            }
            let job = jobs[head]
            head += 1
            if head > 256 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job(resource)
        }
    }
}

extension WorkerThreads where Resource == Void {
    /// `count` threads that own nothing: a pool for blocking calls.
    public convenience init(name: String, count: Int, stackSize: Int = 4 << 20) {
        self.init(name: name, resources: Array(repeating: (), count: max(1, count)), stackSize: stackSize)
    }

    /// Runs `work` on one of the threads.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await run { (_: Void) in try work() }
    }
}

/// The work was queued after its `WorkerThreads` stopped.
public struct WorkerThreadsStopped: Error, CustomStringConvertible {
    public let name: String
    public var description: String { "\(name) has stopped: no more work is taken" }
}

/// Hands a resource to the one thread that will own it.
///
/// `@unchecked Sendable`: written once by the initializer and taken once by the thread it is
/// given to, before that thread does anything else.
private final class ResourceBox<Resource>: @unchecked Sendable {
    private var resource: Resource?
    init(_ resource: Resource) { self.resource = resource }
    func take() -> Resource {
        defer { resource = nil }
        return resource!
    }
}
