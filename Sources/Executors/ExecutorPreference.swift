/// The task executor a task hands on to the unstructured tasks it starts.
///
/// A child task (`async let`, a task group's) runs on its parent's preferred task executor, but
/// an unstructured `Task {}` does not inherit the preference (SE-0417), so work a task starts
/// that way would land on Swift's cooperative pool.
/// ``_Concurrency/Task/inheritingExecutorPreference(priority:operation:)`` reads the current
/// task's preference and starts the task on it.
///
/// ```swift
/// await ExecutorPreference.with(modelThread) {
///     // Runs on `modelThread`, and so does this stream's producer:
///     Task.inheritingExecutorPreference { await produce() }
/// }
/// ```
public enum ExecutorPreference {
    /// The task executor the current task prefers, if it set one (nil outside a task, or when it
    /// runs on the default executor).
    public static var current: (any TaskExecutor)? {
        withUnsafeCurrentTask { task in unsafe task?.unownedTaskExecutor?.asTaskExecutor() }
    }

    /// Runs `operation` preferring `executor` (`withTaskExecutorPreference`); the tasks it starts
    /// with ``_Concurrency/Task/inheritingExecutorPreference(priority:operation:)`` prefer it too.
    public static func with<T>(
        _ executor: any TaskExecutor, isolation: isolated (any Actor)? = #isolation, operation: () async throws -> T
    ) async rethrows -> T {
        try await withTaskExecutorPreference(executor, isolation: isolation, operation: operation)
    }
}

extension Task where Failure == Never {
    /// An unstructured task that prefers the executor its creator prefers
    /// (``ExecutorPreference/current``; none: the global pool, as `Task {}`).
    @discardableResult
    public static func inheritingExecutorPreference(
        priority: TaskPriority? = nil, operation: sending @escaping () async -> Success
    ) -> Task {
        Task(executorPreference: ExecutorPreference.current, priority: priority, operation: operation)
    }
}

extension Task where Failure == any Error {
    /// A throwing unstructured task that prefers the executor its creator prefers
    /// (``ExecutorPreference/current``; none: the global pool, as `Task {}`).
    @discardableResult
    public static func inheritingExecutorPreference(
        priority: TaskPriority? = nil, operation: sending @escaping () async throws -> Success
    ) -> Task {
        Task(executorPreference: ExecutorPreference.current, priority: priority, operation: operation)
    }
}
