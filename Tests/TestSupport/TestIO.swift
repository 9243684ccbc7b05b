import Foundation

/// Runs a test client's blocking socket call on a thread of its own, so that a test awaiting it
/// holds none of Swift's cooperative threads: the server under test answers on those threads
/// (two on a 2-core machine), and a test blocking them would starve it.
public enum TestIO {
    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}
