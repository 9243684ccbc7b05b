/// Decimal digit automata for numeric ranges.
///
/// Numbers are handled as digit strings (values 0…9, most significant first), so bounds of any
/// size compare exactly: an integer range becomes one fixed-width automaton per digit count,
/// and a decimal range an integer part plus a fraction bounded digit by digit.
enum Digits {
    /// The decimal digits of a non-negative integer, without leading zeros ("0" is `[0]`).
    static func of(_ value: UInt) -> [UInt8] {
        Array(String(value).utf8).map { $0 - 0x30 }
    }

    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return 0
    }

    static func incremented(_ digits: [UInt8]) -> [UInt8] {
        var result = digits
        var index = result.count - 1
        while index >= 0 {
            if result[index] < 9 {
                result[index] += 1
                return result
            }
            result[index] = 0
            index -= 1
        }
        return [1] + result
    }

    /// `digits - 1`; `digits` must be positive.
    static func decremented(_ digits: [UInt8]) -> [UInt8] {
        var result = digits
        var index = result.count - 1
        while result[index] == 0 {
            result[index] = 9
            index -= 1
        }
        result[index] -= 1
        if result.count > 1 && result[0] == 0 { result.removeFirst() }
        return result
    }

    static func nines(_ count: Int) -> [UInt8] { [UInt8](repeating: 9, count: count) }
}

/// A non-negative decimal value as digit strings: `integer` without leading zeros, `fraction`
/// without trailing zeros.
struct DecimalDigits: Equatable {
    var integer: [UInt8]
    var fraction: [UInt8]

    static let zero = DecimalDigits(integer: [0], fraction: [])

    init(integer: [UInt8], fraction: [UInt8]) {
        var integer = integer
        while integer.count > 1 && integer[0] == 0 { integer.removeFirst() }
        if integer.isEmpty { integer = [0] }
        var fraction = fraction
        while fraction.last == 0 { fraction.removeLast() }
        self.integer = integer
        self.fraction = fraction
    }

    /// The exact decimal form of `value.magnitude`'s shortest round-trip representation.
    init(magnitudeOf value: Double) {
        let text = value.magnitude.description  // e.g. "12.5", "1e-05", "1.5e+20"
        var mantissa = Substring(text)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<e]
            exponent = Int(text[text.index(after: e)...]) ?? 0
        }
        var digits: [UInt8] = []
        var pointPosition: Int?
        for character in mantissa {
            if character == "." {
                pointPosition = digits.count
            } else if let digit = character.wholeNumberValue {
                digits.append(UInt8(digit))
            }
        }
        let point = (pointPosition ?? digits.count) + exponent
        if point <= 0 {
            self.init(integer: [0], fraction: [UInt8](repeating: 0, count: -point) + digits)
        } else if point >= digits.count {
            self.init(integer: digits + [UInt8](repeating: 0, count: point - digits.count), fraction: [])
        } else {
            self.init(integer: Array(digits[..<point]), fraction: Array(digits[point...]))
        }
    }

    static func < (a: DecimalDigits, b: DecimalDigits) -> Bool {
        let integers = Digits.compare(a.integer, b.integer)
        if integers != 0 { return integers < 0 }
        for index in 0..<max(a.fraction.count, b.fraction.count) {
            let x = index < a.fraction.count ? a.fraction[index] : 0
            let y = index < b.fraction.count ? b.fraction[index] : 0
            if x != y { return x < y }
        }
        return false
    }
}

extension ByteNFA {
    /// Non-negative integers written without leading zeros, from `low` to `high` inclusive.
    mutating func unsignedRange(low: [UInt8], high: [UInt8], from: Int32, to: Int32) throws {
        guard Digits.compare(low, high) <= 0 else { return }
        for width in low.count...high.count {
            let first = width == low.count ? low : (width == 1 ? [0] : [1] + [UInt8](repeating: 0, count: width - 1))
            let last = width == high.count ? high : Digits.nines(width)
            try fixedWidthDigits(low: first, high: last, from: from, to: to)
        }
    }

    /// Digit strings of one width between `low` and `high` (where numeric and lexicographic order
    /// agree), tracking whether the prefix so far still equals each bound's.
    private mutating func fixedWidthDigits(low: [UInt8], high: [UInt8], from: Int32, to: Int32) throws {
        var memo: [Int: Int32] = [:]
        func build(_ state: Int32, _ position: Int, _ tightLow: Bool, _ tightHigh: Bool) throws {
            let lowest = tightLow ? low[position] : 0
            let highest = tightHigh ? high[position] : 9
            guard lowest <= highest else { return }
            for digit in lowest...highest {
                let nextLow = tightLow && digit == low[position]
                let nextHigh = tightHigh && digit == high[position]
                let target: Int32
                if position + 1 == low.count {
                    target = to
                } else {
                    let key = (position + 1) * 4 + (nextLow ? 2 : 0) + (nextHigh ? 1 : 0)
                    if let known = memo[key] {
                        target = known
                    } else {
                        target = try addState()
                        memo[key] = target
                        try build(target, position + 1, nextLow, nextHigh)
                    }
                }
                addEdge(state, 0x30 + digit, target)
            }
        }
        try build(from, 0, true, true)
    }

    /// An optional fraction (`.` and 1…`maxDigits` digits) whose value lies between `lower` and
    /// `upper` (digit strings after the point; nil means unbounded). An absent fraction counts as 0.
    mutating func fraction(lower: [UInt8]?, upper: [UInt8]?, maxDigits: Int, from: Int32, to: Int32) throws {
        let lower = lower.flatMap { $0.isEmpty ? nil : $0 }
        if lower == nil { addEpsilon(from, to) }
        let point = try addState()
        addEdge(from, 0x2E, point)
        var memo: [Int: Int32] = [:]
        func build(_ state: Int32, _ position: Int, _ tightLow: Bool, _ tightHigh: Bool) throws {
            // Past the lower bound's last digit, any further digits keep the value ≥ it.
            let tightLow = tightLow && position < (lower?.count ?? 0)
            if position >= 1 && !tightLow { addEpsilon(state, to) }
            guard position < maxDigits else { return }
            let lowDigit = tightLow ? lower![position] : 0
            // Past the upper bound's digits the bound continues with zeros.
            let highDigit: UInt8 = tightHigh ? (position < upper!.count ? upper![position] : 0) : 9
            guard lowDigit <= highDigit else { return }
            for digit in lowDigit...highDigit {
                let nextLow = tightLow && digit == lowDigit
                let nextHigh = tightHigh && digit == highDigit
                let key = (position + 1) * 4 + (nextLow ? 2 : 0) + (nextHigh ? 1 : 0)
                let target: Int32
                if let known = memo[key] {
                    target = known
                } else {
                    target = try addState()
                    memo[key] = target
                    try build(target, position + 1, nextLow, nextHigh)
                }
                addEdge(state, 0x30 + digit, target)
            }
        }
        try build(point, 0, lower != nil, upper != nil)
    }

    /// Non-negative decimals in `low...high` (`high` nil: integer part of at most
    /// `unboundedIntegerDigits` digits), with at most `maxFractionDigits` fraction digits.
    mutating func decimalRange(
        low: DecimalDigits, high: DecimalDigits?, unboundedIntegerDigits: Int, maxFractionDigits: Int,
        from: Int32, to: Int32
    ) throws {
        if let high, high < low { return }
        if let high, high.integer == low.integer {
            let afterInteger = try literal(low.integer.map { $0 + 0x30 }, from: from)
            try fraction(
                lower: low.fraction, upper: high.fraction, maxDigits: maxFractionDigits, from: afterInteger, to: to)
            return
        }
        var middleLow = low.integer
        if !low.fraction.isEmpty {
            let afterInteger = try literal(low.integer.map { $0 + 0x30 }, from: from)
            try fraction(lower: low.fraction, upper: nil, maxDigits: maxFractionDigits, from: afterInteger, to: to)
            middleLow = Digits.incremented(low.integer)
        }
        let middleHigh: [UInt8]?
        if let high {
            middleHigh = high.integer == [0] ? nil : Digits.decremented(high.integer)
            let afterInteger = try literal(high.integer.map { $0 + 0x30 }, from: from)
            try fraction(lower: nil, upper: high.fraction, maxDigits: maxFractionDigits, from: afterInteger, to: to)
        } else {
            middleHigh = Digits.nines(unboundedIntegerDigits)
        }
        if let middleHigh, Digits.compare(middleLow, middleHigh) <= 0 {
            let afterInteger = try addState()
            try unsignedRange(low: middleLow, high: middleHigh, from: from, to: afterInteger)
            try fraction(lower: nil, upper: nil, maxDigits: maxFractionDigits, from: afterInteger, to: to)
        }
    }
}
