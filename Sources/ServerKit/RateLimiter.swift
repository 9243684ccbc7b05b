import ChatStore
import Foundation

/// Per-user token buckets: `rate` requests a second on average, bursts up to `burst`.
package final class RateLimiter: @unchecked Sendable {
    // @unchecked Sendable: `buckets` is only touched inside `lock`.

    package struct Bucket {
        var tokens: Double
        var updated: Double
    }

    package let rate: Double
    package let burst: Double
    private let lock = NSLock()
    private var buckets: [UserID: Bucket] = [:]
    private var lastSweep: Double = 0

    /// `rate` 0 turns limiting off.
    package init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = max(1, burst)
    }

    /// Takes one token for `user`; nil when allowed, else the seconds until one is free.
    package func take(_ user: UserID, now: Double = ProcessInfo.processInfo.systemUptime) -> Int? {
        guard rate > 0 else { return nil }
        lock.lock()
        defer { lock.unlock() }
        if now - lastSweep > 60 {
            // Full buckets carry no information: forget them so the table stays small.
            buckets = buckets.filter { _, bucket in bucket.tokens + (now - bucket.updated) * rate < burst }
            lastSweep = now
        }
        var bucket = buckets[user] ?? Bucket(tokens: burst, updated: now)
        bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated) * rate)
        bucket.updated = now
        guard bucket.tokens >= 1 else {
            buckets[user] = bucket
            return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
        }
        bucket.tokens -= 1
        buckets[user] = bucket
        return nil
    }
}
