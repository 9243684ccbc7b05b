import Foundation

/// Nanoseconds on CLOCK_MONOTONIC. Message texts carry this clock from the sender to the
/// receivers; it is system-wide, so every thread reads the same time line.
@inline(__always) func monotonicNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// One thread's CPU clock (what CLOCK_THREAD_CPUTIME_ID reads on that thread), under an id any
/// thread can read while that thread lives: the run samples every thread at the same two moments,
/// when sending starts and when the last send is answered.
struct ThreadCPUClock: Sendable {
    let id: clockid_t

    /// The calling thread's clock.
    static func current() -> ThreadCPUClock {
        var id = clockid_t()
        let status = pthread_getcpuclockid(pthread_self(), &id)
        precondition(status == 0, "pthread_getcpuclockid failed for the calling thread")
        return ThreadCPUClock(id: id)
    }

    var nanoseconds: Int64 {
        var time = timespec()
        guard clock_gettime(id, &time) == 0 else { return 0 }
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
