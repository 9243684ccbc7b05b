import Foundation

/// Counts open connections, in all and per client address, against their caps.
final class ConnectionLimiter: @unchecked Sendable {
    // @unchecked Sendable: `perAddress` and `total` are only touched inside `lock`.

    private let lock = NSLock()
    private var perAddress: [String: Int] = [:]
    private var total = 0
    let maxTotal: Int
    let maxPerAddress: Int

    init(maxTotal: Int, maxPerAddress: Int) {
        self.maxTotal = maxTotal
        self.maxPerAddress = maxPerAddress
    }

    /// Takes a slot for `address`; the reason when a cap is reached.
    func acquire(_ address: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard total < maxTotal else { return "the server has \(maxTotal) connections open" }
        let count = perAddress[address, default: 0]
        guard count < maxPerAddress else { return "\(maxPerAddress) connections open from your address" }
        perAddress[address] = count + 1
        total += 1
        return nil
    }

    func release(_ address: String) {
        lock.lock()
        defer { lock.unlock() }
        total -= 1
        let count = perAddress[address, default: 1] - 1
        perAddress[address] = count > 0 ? count : nil
    }

    var open: Int {
        lock.lock()
        defer { lock.unlock() }
        return total
    }
}
