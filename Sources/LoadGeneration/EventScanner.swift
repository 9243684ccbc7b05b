/// The fields of a server event the receivers count, as ranges of the frame's bytes.
struct EventFields {
    /// The top-level `"type"` string's contents.
    var type: Range<Int>?
    /// The top-level `"seq"`, when it is an integer.
    var seq: Int64?
    /// `message.text`'s contents, escapes left as they are (the load's texts have none).
    var text: Range<Int>?
    /// `message.id`'s contents.
    var id: Range<Int>?
}

/// A byte-level JSON walker over one event, so a receiver reads a frame where it lies, with no
/// Foundation and no allocation: every value is checked to its end (strings with escapes,
/// numbers, nested objects and arrays, literals), and only the fields above are kept, wherever
/// they stand among the keys.
struct EventScanner {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    /// Deeper nesting than any event has; a bound, so a hostile frame cannot exhaust the stack.
    private static let maximumDepth = 32

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The fields of the JSON object in `bytes`; nil when `bytes` is not one JSON object.
    static func scan(_ bytes: UnsafeRawBufferPointer) -> EventFields? {
        var scanner = EventScanner(bytes)
        var fields = EventFields()
        let walked = scanner.members(depth: 0) { scanner, key in
            if Self.equal(scanner.bytes, key, "type") {
                fields.type = scanner.string()
                return fields.type != nil
            } else if Self.equal(scanner.bytes, key, "seq") {
                guard let number = scanner.number() else { return false }
                if case .integer(let value) = number { fields.seq = value }
                return true
            } else if Self.equal(scanner.bytes, key, "message"), scanner.peek() == UInt8(ascii: "{") {
                return scanner.members(depth: 1) { scanner, key in
                    if Self.equal(scanner.bytes, key, "text") {
                        fields.text = scanner.string()
                        return fields.text != nil
                    } else if Self.equal(scanner.bytes, key, "id") {
                        fields.id = scanner.string()
                        return fields.id != nil
                    }
                    return scanner.skipValue(depth: 2)
                }
            }
            return scanner.skipValue(depth: 1)
        }
        scanner.skipWhitespace()
        guard walked, scanner.index == bytes.count else { return nil }
        return fields
    }

    /// Whether the bytes in `range` are `literal`'s.
    static func equal(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ literal: StaticString) -> Bool {
        guard range.count == literal.utf8CodeUnitCount else { return false }
        for offset in 0..<range.count where bytes[range.lowerBound + offset] != literal.utf8Start[offset] {
            return false
        }
        return true
    }

    // MARK: Values

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Walks the object at the index, calling `member` with each key's contents and the index at
    /// its value; `member` reads or skips the value and says whether it was well formed.
    private mutating func members(
        depth: Int, _ member: (inout EventScanner, Range<Int>) -> Bool
    ) -> Bool {
        entries(depth: depth, open: UInt8(ascii: "{"), close: UInt8(ascii: "}")) { scanner in
            guard let key = scanner.string() else { return false }
            scanner.skipWhitespace()
            guard scanner.peek() == UInt8(ascii: ":") else { return false }
            scanner.index += 1
            scanner.skipWhitespace()
            return member(&scanner, key)
        }
    }

    private mutating func elements(depth: Int) -> Bool {
        entries(depth: depth, open: UInt8(ascii: "["), close: UInt8(ascii: "]")) { scanner in
            scanner.skipValue(depth: depth + 1)
        }
    }

    /// Walks the object or array at the index, `open` to `close`, calling `entry` at each entry
    /// (a member or an element) between the commas.
    private mutating func entries(
        depth: Int, open: UInt8, close: UInt8, _ entry: (inout EventScanner) -> Bool
    ) -> Bool {
        skipWhitespace()
        guard depth < Self.maximumDepth, peek() == open else { return false }
        index += 1
        skipWhitespace()
        if peek() == close {
            index += 1
            return true
        }
        while true {
            skipWhitespace()
            guard entry(&self) else { return false }
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case close:
                index += 1
                return true
            default: return false
            }
        }
    }

    private mutating func skipValue(depth: Int) -> Bool {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "{"): return members(depth: depth) { scanner, _ in scanner.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["): return elements(depth: depth)
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number() != nil
        }
    }

    /// The contents of the string at the index (after its opening quote, before its closing one).
    private mutating func string() -> Range<Int>? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        index += 1
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return start..<(index - 1)
            case UInt8(ascii: "\\"):
                // The escaped byte cannot end the string; `\uXXXX`'s digits are ordinary bytes.
                index += 2
            case 0..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    private enum Number {
        case integer(Int64)
        /// A fraction, an exponent, or an integer past Int64.
        case other
    }

    private mutating func number() -> Number? {
        let start = index
        var value: Int64? = 0
        let negative = peek() == UInt8(ascii: "-")
        if negative { index += 1 }
        let digitsStart = index
        while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            if let current = value {
                let (times, overflow) = current.multipliedReportingOverflow(by: 10)
                let (sum, carry) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                value = overflow || carry ? nil : sum
            }
            index += 1
        }
        guard index > digitsStart else {
            index = start
            return nil
        }
        if peek() == UInt8(ascii: ".") {
            value = nil
            index += 1
            guard skipDigits() else { return nil }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            value = nil
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() else { return nil }
        }
        guard let value else { return .other }
        return .integer(negative ? -value : value)
    }

    private mutating func skipDigits() -> Bool {
        let start = index
        while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index > start
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let end = index + word.utf8CodeUnitCount
        guard end <= bytes.count, Self.equal(bytes, index..<end, word) else { return false }
        index = end
        return true
    }
}
