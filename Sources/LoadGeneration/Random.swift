import Foundation

/// wyrand: a fast generator for the choices of a run (channel, author, masks, keys). Seeded from
/// the system once; asking the system per choice costs a system call each.
struct FastRandom {
    private var state: UInt64

    init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    mutating func next() -> UInt64 {
        state &+= 0xA076_1D64_78BD_642F
        let product = state.multipliedFullWidth(by: state ^ 0xE703_7ED1_A0B4_28DB)
        return product.high ^ product.low
    }

    /// A value in `0..<bound`.
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0)
        return Int(next() % UInt64(bound))
    }

    /// A fresh Sec-WebSocket-Key: 16 random bytes in base64.
    mutating func webSocketKey() -> String {
        var bytes = Data()
        for _ in 0..<2 { withUnsafeBytes(of: next()) { bytes.append(contentsOf: $0) } }
        return bytes.base64EncodedString()
    }
}
