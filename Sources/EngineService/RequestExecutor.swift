import Foundation

/// Where the engine service's requests run: a task executor with one thread of its own.
///
/// Each connection's request is a task started from the connection's reader thread, which has no
/// task executor to hand on; without one the task would run on Swift's cooperative pool (as many
/// threads as cores), where anything blocked elsewhere in the process could hold it up. The
/// requests mostly wait for the engine (generation runs on the engine's own threads), so they
/// share this one thread.
final class RequestExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` is only touched while holding `condition`.

    /// The executor of the service's requests.
    static let shared = RequestExecutor(name: "sotto.engine-requests")

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init(name: String) {
        let thread = Thread { [unowned self] in self.run() }
        thread.stackSize = 8 << 20
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
