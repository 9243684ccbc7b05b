import Foundation

/// A task executor backed by one dedicated thread, where model work runs.
///
/// Keeps that work off Swift's cooperative pool, so threads blocked elsewhere in the process
/// (there are only as many pool threads as cores) cannot starve it, and work that blocks (say,
/// on model kernels) cannot starve anything else.
final class ModelExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` is only touched while holding `condition`.

    /// Reply suggestions, one generation at a time (`SuggestionScheduler`).
    static let suggestions = ModelExecutor(name: "sotto.suggestions")
    /// Writing tools, translations, summaries and the other requested jobs (`ModelJobs`), so a
    /// long summary never holds up the chips.
    static let jobs = ModelExecutor(name: "sotto.model-jobs")
    /// The assistant's answers, token counts and titles (`AssistantEngine`).
    static let assistant = ModelExecutor(name: "sotto.assistant")
    /// The OpenAI-compatible API's completions (`OpenAIAPI`): their tasks mostly wait for the
    /// engine and the client, so they share one thread.
    static let completions = ModelExecutor(name: "sotto.completions")

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init(name: String) {
        let thread = Thread { [unowned self] in self.loop() }
        thread.stackSize = 8 << 20
        thread.name = name
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
