/// A small, fast, seedable pseudo-random generator (xoshiro256**), so that the same seed and
/// options reproduce the same tokens on every platform and Swift version.
///
/// The 64-bit seed is expanded into the 256-bit state with SplitMix64, as the xoshiro authors
/// recommend; a zero seed is fine.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        var mix = seed
        func splitMix() -> UInt64 {
            mix &+= 0x9E37_79B9_7F4A_7C15
            var z = mix
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix()
        s1 = splitMix()
        s2 = splitMix()
        s3 = splitMix()
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    /// A uniform value in [0, 1) with 53 bits of precision.
    public mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    @inline(__always)
    private func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
}
