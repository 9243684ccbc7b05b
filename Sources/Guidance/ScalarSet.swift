/// A set of Unicode scalar values, kept as sorted, disjoint, non-adjacent ranges.
struct ScalarSet: Hashable, Sendable {
    static let maximum: UInt32 = 0x10FFFF
    static let surrogates: ClosedRange<UInt32> = 0xD800...0xDFFF

    private(set) var ranges: [ClosedRange<UInt32>] = []

    init() {}

    init(_ ranges: [ClosedRange<UInt32>]) {
        for range in ranges { insert(range) }
    }

    init(scalar: UInt32) {
        ranges = [scalar...scalar]
    }

    /// Every scalar value (surrogate code points are not scalars).
    static let all = ScalarSet([0...0xD7FF, 0xE000...maximum])
    static let digits = ScalarSet([0x30...0x39])
    static let word = ScalarSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    /// `\s`: ASCII white space (tab, line feed, vertical tab, form feed, carriage return, space).
    static let space = ScalarSet([0x09...0x0D, 0x20...0x20])
    /// `.`: anything but line feed and carriage return.
    static let dot = all.subtracting(ScalarSet([0x0A...0x0A, 0x0D...0x0D]))

    var isEmpty: Bool { ranges.isEmpty }

    func contains(_ scalar: UInt32) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].upperBound < scalar {
                low = mid + 1
            } else if ranges[mid].lowerBound > scalar {
                high = mid
            } else {
                return true
            }
        }
        return false
    }

    mutating func insert(_ range: ClosedRange<UInt32>) {
        var result: [ClosedRange<UInt32>] = []
        result.reserveCapacity(ranges.count + 1)
        var pending = range
        var placed = false
        for existing in ranges {
            if placed {
                result.append(existing)
            } else if existing.upperBound &+ 1 < pending.lowerBound {
                result.append(existing)
            } else if pending.upperBound &+ 1 < existing.lowerBound {
                result.append(pending)
                result.append(existing)
                placed = true
            } else {
                pending =
                    min(existing.lowerBound, pending.lowerBound)...max(existing.upperBound, pending.upperBound)
            }
        }
        if !placed { result.append(pending) }
        ranges = result
    }

    func union(_ other: ScalarSet) -> ScalarSet {
        var result = self
        for range in other.ranges { result.insert(range) }
        return result
    }

    /// The scalars not in this set.
    func inverted() -> ScalarSet {
        var gaps: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for range in ranges {
            if range.lowerBound > next { gaps.append(next...(range.lowerBound - 1)) }
            next = range.upperBound + 1
        }
        if next <= Self.maximum { gaps.append(next...Self.maximum) }
        return ScalarSet(gaps).subtracting(ScalarSet([Self.surrogates]))
    }

    func subtracting(_ other: ScalarSet) -> ScalarSet {
        var result: [ClosedRange<UInt32>] = []
        for range in ranges {
            var low = range.lowerBound
            var finished = false
            for cut in other.ranges where cut.upperBound >= low && cut.lowerBound <= range.upperBound {
                if cut.lowerBound > low { result.append(low...(cut.lowerBound - 1)) }
                if cut.upperBound >= range.upperBound {
                    finished = true
                    break
                }
                low = cut.upperBound + 1
            }
            if !finished { result.append(low...range.upperBound) }
        }
        var set = ScalarSet()
        set.ranges = result
        return set
    }

    func intersection(_ other: ScalarSet) -> ScalarSet {
        subtracting(other.inverted().union(ScalarSet([Self.surrogates])))
    }
}

extension ScalarSet {
    /// The UTF-8 encodings of the scalars in `range` (which must lie within one encoded length
    /// and hold no surrogates), as sequences of byte ranges: every byte string matching one of the
    /// sequences encodes a scalar in `range`, and every scalar in `range` is matched by exactly one.
    static func utf8Sequences(_ range: ClosedRange<UInt32>) -> [[ClosedRange<UInt8>]] {
        var result: [[ClosedRange<UInt8>]] = []
        // Split first by encoded length and around the surrogates.
        let bands: [ClosedRange<UInt32>] = [0...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...maximum]
        for band in bands {
            let low = max(band.lowerBound, range.lowerBound)
            let high = min(band.upperBound, range.upperBound)
            if low <= high { splitSameLength(low, high, into: &result) }
        }
        return result
    }

    /// Splits `low...high` (same encoded length) until each piece is a product of byte ranges.
    private static func splitSameLength(_ low: UInt32, _ high: UInt32, into result: inout [[ClosedRange<UInt8>]]) {
        let length = encodedLength(low)
        if length == 1 {
            result.append([UInt8(low)...UInt8(high)])
            return
        }
        for index in 1..<length {
            let mask: UInt32 = (1 << (6 * UInt32(index))) - 1
            if low & ~mask != high & ~mask {
                if low & mask != 0 {
                    splitSameLength(low, low | mask, into: &result)
                    splitSameLength((low | mask) + 1, high, into: &result)
                    return
                }
                if high & mask != mask {
                    splitSameLength(low, (high & ~mask) - 1, into: &result)
                    splitSameLength(high & ~mask, high, into: &result)
                    return
                }
            }
        }
        let lowBytes = encode(low)
        let highBytes = encode(high)
        result.append(zip(lowBytes, highBytes).map { $0...$1 })
    }

    static func encodedLength(_ scalar: UInt32) -> Int {
        switch scalar {
        case 0..<0x80: 1
        case 0x80..<0x800: 2
        case 0x800..<0x10000: 3
        default: 4
        }
    }

    static func encode(_ scalar: UInt32) -> [UInt8] {
        switch encodedLength(scalar) {
        case 1: [UInt8(scalar)]
        case 2: [UInt8(0xC0 | (scalar >> 6)), UInt8(0x80 | (scalar & 0x3F))]
        case 3:
            [UInt8(0xE0 | (scalar >> 12)), UInt8(0x80 | ((scalar >> 6) & 0x3F)), UInt8(0x80 | (scalar & 0x3F))]
        default:
            [
                UInt8(0xF0 | (scalar >> 18)), UInt8(0x80 | ((scalar >> 12) & 0x3F)),
                UInt8(0x80 | ((scalar >> 6) & 0x3F)), UInt8(0x80 | (scalar & 0x3F)),
            ]
        }
    }
}
