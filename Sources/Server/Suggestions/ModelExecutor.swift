import Foundation

/// A task executor backed by one dedicated thread, where suggestion generations run.
///
/// Keeps the scheduler's work off Swift's cooperative pool, so threads blocked elsewhere in
/// the process (there are only as many pool threads as cores) cannot starve it, and a
/// suggester that blocks (say, on model kernels) cannot starve anything else.
final class SuggestionExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` is only touched while holding `condition`.

    /// The process-wide executor: one thread, because the model runs one generation at a time.
    static let shared = SuggestionExecutor()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        let thread = Thread { [unowned self] in self.loop() }
        thread.stackSize = 8 << 20
        thread.name = "sotto.suggestions"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
