import JSONSyntax

/// An error in JSON text given to `TemplateValue(json:)`.
public struct TemplateJSONError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Byte offset into the UTF-8 text.
    public var offset: Int
    /// What was wrong there.
    public var message: String

    /// `"invalid JSON at byte N: <message>"`.
    public var description: String { "invalid JSON at byte \(offset): \(message)" }
}

extension TemplateValue {
    /// Parses JSON text, keeping the order of object keys (Foundation's `JSONSerialization`
    /// does not). Numbers without a fraction or exponent become `.int` (as Python's `json`
    /// reads them) unless they overflow `Int`, then `.double`.
    public init(json: String) throws(TemplateJSONError) {
        var parser = JSONReader(bytes: Array(json.utf8))
        self = try parser.readDocument()
    }

    /// The value as JSON, formatted as Python's `json.dumps(value, ensure_ascii=False)` does:
    /// `", "` and `": "` separators, keys in insertion order; with `indent`, one item per line.
    public func jsonString(indent: Int? = nil) -> String {
        var writer = JSONWriter(indent: indent.map { String(repeating: " ", count: $0) })
        // Template values always have a JSON form; only runtime-only values can fail.
        try? writer.write(ChatTemplates.Value(self))
        return writer.output
    }
}

/// A small recursive-descent JSON reader over UTF-8 bytes.
struct JSONReader {
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func readDocument() throws(TemplateJSONError) -> TemplateValue {
        let value = try readValue()
        skipWhitespace()
        if index != bytes.count { throw error("unexpected trailing text") }
        return value
    }

    private func error(_ message: String) -> TemplateJSONError {
        TemplateJSONError(offset: index, message: message)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func readValue() throws(TemplateJSONError) -> TemplateValue {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of text") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try readObject()
        case UInt8(ascii: "["): return try readArray()
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"):
            try expectWord("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectWord("null")
            return .none
        default: return try readNumber()
        }
    }

    private mutating func expectWord(_ word: String) throws(TemplateJSONError) {
        for byte in word.utf8 {
            guard index < bytes.count, bytes[index] == byte else { throw error("expected '\(word)'") }
            index += 1
        }
    }

    private mutating func enter() throws(TemplateJSONError) {
        depth += 1
        if depth > 512 { throw error("nesting deeper than 512") }
    }

    private mutating func readObject() throws(TemplateJSONError) -> TemplateValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var object = TemplateObject()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a string key")
            }
            let key = try readString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            object[key] = try readValue()
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of text in object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(object)
            } else {
                throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func readArray() throws(TemplateJSONError) -> TemplateValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [TemplateValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            items.append(try readValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of text in array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            } else {
                throw error("expected ',' or ']'")
            }
        }
    }

    private mutating func readString() throws(TemplateJSONError) -> String {
        let decoded: (utf8: [UInt8], end: Int?)
        do {
            // As Python's json: a lone surrogate is kept (here as U+FFFD), raw control characters are not.
            decoded = try JSONStringLiteral.decode(
                bytes, openingQuoteAt: index, options: .init(loneSurrogates: .replace, allowsControlCharacters: false))
        } catch {
            throw TemplateJSONError(offset: error.offset, message: error.message)
        }
        guard let end = decoded.end else {
            index = bytes.count
            throw self.error("unterminated string")
        }
        index = end
        return String(decoding: decoded.utf8, as: UTF8.self)
    }

    private mutating func readNumber() throws(TemplateJSONError) -> TemplateValue {
        let start = index
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digitsStart = index
        while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        if index == digitsStart { throw error("unexpected character") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            let fractionStart = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            if index == fractionStart { throw error("expected digits after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            let exponentStart = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            if index == exponentStart { throw error("expected exponent digits") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let value = Int(text) { return .int(value) }
        guard let value = Double(text) else { throw error("bad number '\(text)'") }
        return .double(value)
    }
}
