import Foundation
import Synchronization

/// Polls `condition` every 10 ms until it holds or `timeout` seconds pass; whether it held. The
/// test's task sleeps between polls, holding no thread.
public func eventually(timeout: Double = 30, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
}

/// A count of signals that a test awaits: the async twin of a semaphore, for signals sent from
/// any thread (a server's handler, a hang-up callback).
public final class TestSignal: Sendable {
    private let count = Mutex(0)

    public init() {}

    public func signal() { count.withLock { $0 += 1 } }

    /// Takes one signal, waiting at most `timeout` seconds; whether one came.
    public func wait(timeout: Double = 30) async -> Bool {
        await eventually(timeout: timeout) {
            count.withLock { count in
                guard count > 0 else { return false }
                count -= 1
                return true
            }
        }
    }
}
