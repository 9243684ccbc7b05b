import JSONSyntax

/// A JSON syntax error at a byte offset.
struct JSONSyntaxError: Error, CustomStringConvertible {
    let offset: Int
    let message: String
    var description: String { "invalid JSON at byte \(offset): \(message)" }
}

/// A JSON parser that accepts any prefix of a valid document.
///
/// It reads what a streaming response has produced so far and marks every value that was cut
/// off as incomplete. Text that cannot be the start of valid JSON is an error with its offset.
struct PartialJSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private static let maximumDepth = 512

    private init(_ text: String) {
        bytes = Array(text.utf8)
    }

    static func parse(_ text: String) throws(JSONSyntaxError) -> GeneratedContent {
        var parser = PartialJSONParser(text)
        guard let value = try parser.parseValue() else {
            throw JSONSyntaxError(offset: parser.index, message: "no value (the text is empty or ends too early)")
        }
        parser.skipWhitespace()
        if parser.index < parser.bytes.count {
            throw JSONSyntaxError(offset: parser.index, message: "unexpected text after the value")
        }
        return value
    }

    private var atEnd: Bool { index >= bytes.count }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    /// The next value, or nil when the input ends before a value has begun to mean anything.
    private mutating func parseValue() throws(JSONSyntaxError) -> GeneratedContent? {
        skipWhitespace()
        guard !atEnd else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try nested { (parser) throws(JSONSyntaxError) in try parser.parseObject() }
        case UInt8(ascii: "["): return try nested { (parser) throws(JSONSyntaxError) in try parser.parseArray() }
        case UInt8(ascii: "\""):
            let (text, complete) = try parseString()
            return GeneratedContent(kind: .string(text), isComplete: complete)
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default:
            throw JSONSyntaxError(
                offset: index, message: "unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    private mutating func nested(
        _ body: (inout PartialJSONParser) throws(JSONSyntaxError) -> GeneratedContent
    ) throws(JSONSyntaxError) -> GeneratedContent {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw JSONSyntaxError(offset: index, message: "nested more than \(Self.maximumDepth) levels deep")
        }
        return try body(&self)
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> GeneratedContent {
        index += 1  // {
        var properties: [String: GeneratedContent] = [:]
        var orderedKeys: [String] = []
        func partial() -> GeneratedContent {
            GeneratedContent(kind: .structure(properties: properties, orderedKeys: orderedKeys), isComplete: false)
        }
        skipWhitespace()
        if atEnd { return partial() }
        if bytes[index] == UInt8(ascii: "}") {
            index += 1
            return GeneratedContent(kind: .structure(properties: [:], orderedKeys: []), isComplete: true)
        }
        while true {
            skipWhitespace()
            if atEnd { return partial() }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw JSONSyntaxError(offset: index, message: "expected a property name in quotes")
            }
            let (key, keyComplete) = try parseString()
            skipWhitespace()
            if !keyComplete || atEnd { return partial() }
            guard bytes[index] == UInt8(ascii: ":") else {
                throw JSONSyntaxError(offset: index, message: "expected ':' after property name \"\(key)\"")
            }
            index += 1
            guard let value = try parseValue() else { return partial() }
            if properties.updateValue(value, forKey: key) == nil { orderedKeys.append(key) }
            skipWhitespace()
            if atEnd { return partial() }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                return GeneratedContent(
                    kind: .structure(properties: properties, orderedKeys: orderedKeys), isComplete: true)
            default:
                throw JSONSyntaxError(offset: index, message: "expected ',' or '}' after property \"\(key)\"")
            }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> GeneratedContent {
        index += 1  // [
        var elements: [GeneratedContent] = []
        skipWhitespace()
        if atEnd { return GeneratedContent(kind: .array([]), isComplete: false) }
        if bytes[index] == UInt8(ascii: "]") {
            index += 1
            return GeneratedContent(kind: .array([]), isComplete: true)
        }
        while true {
            guard let element = try parseValue() else {
                return GeneratedContent(kind: .array(elements), isComplete: false)
            }
            elements.append(element)
            skipWhitespace()
            if atEnd { return GeneratedContent(kind: .array(elements), isComplete: false) }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                return GeneratedContent(kind: .array(elements), isComplete: true)
            default:
                throw JSONSyntaxError(
                    offset: index, message: "expected ',' or ']' after array element \(elements.count - 1)")
            }
        }
    }

    /// A string starting at the opening quote, and whether its closing quote was reached.
    /// An escape or UTF-8 sequence cut off by the end of input is dropped.
    private mutating func parseString() throws(JSONSyntaxError) -> (String, Bool) {
        let decoded: (utf8: [UInt8], end: Int?)
        do {
            decoded = try JSONStringLiteral.decode(
                bytes, openingQuoteAt: index, options: .init(loneSurrogates: .reject, allowsControlCharacters: true))
        } catch {
            throw JSONSyntaxError(offset: error.offset, message: error.message)
        }
        guard let end = decoded.end else {
            index = bytes.count
            // Cut off: drop a trailing partial UTF-8 sequence rather than show a replacement character.
            return (String(decoding: Self.trimmingPartialUTF8(decoded.utf8), as: UTF8.self), false)
        }
        index = end
        return (String(decoding: decoded.utf8, as: UTF8.self), true)
    }

    private static func trimmingPartialUTF8(_ utf8: [UInt8]) -> ArraySlice<UInt8> {
        // Find the start of the last sequence and check that all of its bytes are present.
        var start = utf8.count - 1
        while start >= 0, utf8.count - start <= 4, utf8[start] & 0xC0 == 0x80 { start -= 1 }
        guard start >= 0 else { return utf8[...] }
        let lead = utf8[start]
        let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        return utf8.count - start < length ? utf8[..<start] : utf8[...]
    }

    /// `true`/`false`/`null`; nil when the input ends partway through the word.
    private mutating func parseLiteral(_ word: String, _ kind: GeneratedContent.Kind) throws(JSONSyntaxError)
        -> GeneratedContent?
    {
        for expected in word.utf8 {
            guard index < bytes.count else { return nil }
            guard bytes[index] == expected else {
                throw JSONSyntaxError(offset: index, message: "invalid literal (expected '\(word)')")
            }
            index += 1
        }
        return GeneratedContent(kind: kind, isComplete: true)
    }

    /// A number; when the input ends inside it, the longest valid prefix, marked incomplete
    /// (nil if that is only a sign).
    private mutating func parseNumber() throws(JSONSyntaxError) -> GeneratedContent? {
        let start = index
        while index < bytes.count, Self.isNumberByte(bytes[index]) { index += 1 }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if index >= bytes.count {
            // Cut off: a valid number may still be growing.
            var prefix = Substring(text)
            while !prefix.isEmpty, !Self.isValidNumber(prefix) { prefix = prefix.dropLast() }
            guard !prefix.isEmpty, let value = Double(prefix) else {
                if Self.isNumberPrefix(text) { return nil }
                throw JSONSyntaxError(offset: start, message: "invalid number '\(text)'")
            }
            return GeneratedContent(kind: .number(value), isComplete: false)
        }
        guard Self.isValidNumber(Substring(text)), let value = Double(text) else {
            throw JSONSyntaxError(offset: start, message: "invalid number '\(text)'")
        }
        return GeneratedContent(kind: .number(value), isComplete: true)
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            true
        default: false
        }
    }

    /// JSON's number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private static func isValidNumber(_ text: Substring) -> Bool {
        var characters = text.utf8[...]
        if characters.first == UInt8(ascii: "-") { characters = characters.dropFirst() }
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let integer = characters.prefix(while: isDigit)
        guard !integer.isEmpty, integer.count == 1 || integer.first != UInt8(ascii: "0") else { return false }
        characters = characters.dropFirst(integer.count)
        if characters.first == UInt8(ascii: ".") {
            let fraction = characters.dropFirst().prefix(while: isDigit)
            guard !fraction.isEmpty else { return false }
            characters = characters.dropFirst(1 + fraction.count)
        }
        if let marker = characters.first, marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            characters = characters.dropFirst()
            if let sign = characters.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                characters = characters.dropFirst()
            }
            let exponent = characters.prefix(while: isDigit)
            guard !exponent.isEmpty else { return false }
            characters = characters.dropFirst(exponent.count)
        }
        return characters.isEmpty
    }

    /// Whether `text` could still become a number (only a lone `-` qualifies without digits).
    private static func isNumberPrefix(_ text: String) -> Bool {
        text == "-"
    }
}
