import Foundation

/// Failed sign-ins slowed and then refused, per account and per client address; decisions only,
/// no clock or I/O (the caller passes the time, and answers 429 with `Retry-After`).
///
/// Per key, failures within ``window`` count. Up to `free` of them cost nothing; each one past
/// that makes the next attempt wait twice as long as the last (1 s, 2 s, 4 s … at most
/// ``maxDelay``), and at `refuseAt` the key is refused until the window has passed since its
/// last failure. An account's failures are forgotten at its next successful sign-in; an
/// address's are not (one address may try many accounts). An address is looser than an account:
/// a team behind one proxy shares it.
package struct SignInThrottle: Sendable {
    package struct Limits: Sendable {
        package var free: Int
        package var refuseAt: Int
    }

    package enum Decision: Equatable, Sendable {
        case allowed
        /// Refused; try again after so many seconds.
        case wait(seconds: Int)
    }

    package static let window: TimeInterval = 15 * 60
    package static let maxDelay: TimeInterval = 60
    /// Keys remembered at most, each of accounts and addresses (the oldest go first).
    package static let maxKeys = 10_000

    package let account: Limits
    package let address: Limits
    private var accounts: [String: [Date]] = [:]
    private var addresses: [String: [Date]] = [:]

    package init(
        account: Limits = Limits(free: 5, refuseAt: 20), address: Limits = Limits(free: 20, refuseAt: 100)
    ) {
        self.account = account
        self.address = address
    }

    /// Whether a sign-in to `account` from `address` may be tried at `now`.
    package mutating func check(account name: String, address client: String, now: Date) -> Decision {
        let byAccount = Self.decide(Self.recent(&accounts, Self.key(name), now), account, now)
        let byAddress = Self.decide(Self.recent(&addresses, client, now), address, now)
        switch (byAccount, byAddress) {
        case (.allowed, .allowed): return .allowed
        case (.wait(let a), .allowed), (.allowed, .wait(let a)): return .wait(seconds: a)
        case (.wait(let a), .wait(let b)): return .wait(seconds: max(a, b))
        }
    }

    /// A sign-in failed (wrong password, or no such account).
    package mutating func failed(account name: String, address client: String, now: Date) {
        Self.note(&accounts, Self.key(name), now)
        Self.note(&addresses, client, now)
    }

    /// A sign-in succeeded: the account's failures are forgotten.
    package mutating func succeeded(account name: String) {
        accounts[Self.key(name)] = nil
    }

    /// Names differ in case only for display: one account, one count.
    private static func key(_ name: String) -> String { name.lowercased() }

    private static func recent(_ table: inout [String: [Date]], _ key: String, _ now: Date) -> [Date] {
        guard var failures = table[key] else { return [] }
        failures.removeAll { now.timeIntervalSince($0) >= window }
        table[key] = failures.isEmpty ? nil : failures
        return failures
    }

    private static func decide(_ failures: [Date], _ limits: Limits, _ now: Date) -> Decision {
        guard failures.count >= limits.free, let last = failures.last else { return .allowed }
        let until: Date
        if failures.count >= limits.refuseAt {
            until = last.addingTimeInterval(window)
        } else {
            let delay = min(maxDelay, pow(2, Double(failures.count - limits.free)))
            until = last.addingTimeInterval(delay)
        }
        let seconds = until.timeIntervalSince(now)
        return seconds > 0 ? .wait(seconds: Int(seconds.rounded(.up))) : .allowed
    }

    private static func note(_ table: inout [String: [Date]], _ key: String, _ now: Date) {
        var failures = recent(&table, key, now)
        failures.append(now)
        // Enough to decide with: a refused key is not tried, so it gains no more.
        if failures.count > 256 { failures.removeFirst(failures.count - 256) }
        table[key] = failures
        if table.count > maxKeys {
            // Forget the key whose last failure is oldest.
            if let oldest = table.min(by: { ($0.value.last ?? now) < ($1.value.last ?? now) })?.key {
                table[oldest] = nil
            }
        }
    }
}
