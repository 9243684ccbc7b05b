// A task's executor preference (`withTaskExecutorPreference`, `Task(executorPreference:)`)
// passes to its child tasks, but not to the unstructured tasks it starts: `Task {}` and
// `Task.detached {}` run on the global executor, Swift's cooperative pool, which has as many
// threads as cores. Model work started that way (a stream's generation, a prewarm) would wait
// for a pool thread however the app had set things up. These read the creator's preference and
// hand it on, so the work runs where its creator runs.

/// The task executor the current task prefers, if it set one (nil outside a task, or when it
/// runs on the default executor).
package func currentTaskExecutorPreference() -> (any TaskExecutor)? {
    withUnsafeCurrentTask { task in unsafe task?.unownedTaskExecutor?.asTaskExecutor() }
}

extension Task where Failure == Never {
    /// Starts `operation` as `Task {}` does (it inherits priority and task-local values), on the
    /// task executor the current task prefers.
    @discardableResult
    package static func preferringCurrentExecutor(
        priority: TaskPriority? = nil, operation: sending @escaping () async -> Success
    ) -> Task<Success, Never> {
        Task(executorPreference: currentTaskExecutorPreference(), priority: priority, operation: operation)
    }

    /// Starts `operation` as `Task.detached {}` does, on the task executor the current task
    /// prefers.
    @discardableResult
    package static func detachedPreferringCurrentExecutor(
        priority: TaskPriority? = nil, operation: sending @escaping () async -> Success
    ) -> Task<Success, Never> {
        Task.detached(executorPreference: currentTaskExecutorPreference(), priority: priority, operation: operation)
    }
}
