/// 64-bit FNV-1a: a small hash of bytes that is the same in every process and on every machine
/// (unlike `Hasher`, which is seeded per process), for ids and cache keys that must be stable.
///
/// ```swift
/// var hash = FNV1a()
/// hash.combine("alice".utf8)
/// hash.combine(0xFF)            // a separator byte between fields
/// let key = hash.hexDigest      // "a2f4…", always the same for the same input
/// ```
public struct FNV1a: Sendable, Hashable {
    /// The standard offset basis, the starting value of a hash.
    public static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    /// The 64-bit FNV prime.
    public static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// The hash of everything combined so far.
    public private(set) var value: UInt64

    /// A hash starting from `seed` (another seed gives an independent hash of the same bytes).
    public init(seed: UInt64 = FNV1a.offsetBasis) {
        value = seed
    }

    /// Adds one byte.
    @inline(__always)
    public mutating func combine(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* Self.prime
    }

    /// Adds bytes in order.
    public mutating func combine(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { combine(byte) }
    }

    /// `value` as 16 lowercase hex digits.
    public var hexDigest: String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
