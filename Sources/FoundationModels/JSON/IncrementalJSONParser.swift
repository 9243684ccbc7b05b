import JSONSyntax

/// A JSON syntax error at a byte offset.
struct JSONSyntaxError: Error, CustomStringConvertible {
    let offset: Int
    let message: String
    var description: String { "invalid JSON at byte \(offset): \(message)" }
}

/// A JSON parser fed a document in pieces, which can say at any point what has arrived so far.
///
/// It reads each byte once: `append(_:)` costs what the new bytes cost, and ``snapshot()``
/// costs the depth of the value being written, not its size, so following a streamed response
/// token by token is linear in its length. (Finished values are kept as they are; a snapshot
/// only rebuilds the containers still open, and their storage is shared with the snapshot it
/// returns, so as long as the caller lets go of a snapshot before appending again, nothing is
/// copied.)
///
/// A snapshot marks every value that was cut off as incomplete; a key whose value has not
/// started, and a literal or number sign cut off before it means anything, are left out. Text
/// that cannot be the start of valid JSON is an error with its offset.
///
/// With a `base` id, every value gets an id derived from it and its path, the same in every
/// snapshot (``GeneratedContent/identified(by:)`` derives the same ones).
struct IncrementalJSONParser {
    private enum Expect {
        case firstKeyOrEnd, key, colon, value, commaOrEnd
        case firstElementOrEnd, element
    }

    private struct Frame {
        let isObject: Bool
        let id: GenerationID?
        let path: String
        var expect: Expect
        var properties: [String: GeneratedContent] = [:]
        var keys: [String] = []
        /// The key whose value is being read.
        var key: String?
        var elements: [GeneratedContent] = []
        /// Whether a snapshot put the open child into `properties`/`elements` (taken out again
        /// before parsing goes on), and what it displaced there (a duplicate key's earlier value).
        var holdsOpenChild = false
        var displaced: GeneratedContent?
        var addedKey = false
    }

    private enum Leaf {
        case string(StringLeaf)
        case number(start: Int, bytes: [UInt8])
        case literal(start: Int, word: [UInt8], matched: Int, kind: GeneratedContent.Kind)
    }

    private struct StringLeaf {
        var isKey: Bool
        var text = ""
        /// Raw bytes not yet turned into text (the start of a multi-byte character).
        var raw: [UInt8] = []
        /// An escape sequence being read, from its backslash, and where it started.
        var escape: [UInt8]?
        var escapeStart = 0
    }

    private static let maximumDepth = 512

    private let base: GenerationID?
    private var stack: [Frame] = []
    private var leaf: Leaf?
    private var root: GeneratedContent?
    private var offset = 0
    private var failure: JSONSyntaxError?

    init(base: GenerationID? = nil) {
        self.base = base
    }

    /// Whether the document's value has been read to its end.
    var isComplete: Bool { root != nil }

    /// Reads more of the document.
    mutating func append(_ bytes: some Sequence<UInt8>) throws(JSONSyntaxError) {
        if let failure { throw failure }
        detachOpenChildren()
        do {
            for byte in bytes {
                try consume(byte)
                offset += 1
            }
            flushRaw()
        } catch {
            failure = error
            throw error
        }
    }

    /// What has arrived so far: nil while no value has begun to mean anything.
    ///
    /// - Throws: when the document so far is not a prefix of valid JSON (a number that cannot
    ///   be completed).
    mutating func snapshot() throws(JSONSyntaxError) -> GeneratedContent? {
        if let failure { throw failure }
        if let root { return root }
        var child: GeneratedContent?
        if let leaf {
            switch leaf {
            case .string(let string):
                if !string.isKey {
                    child = GeneratedContent(kind: .string(string.text), id: nextID(), isComplete: false)
                }
            case .number(let start, let bytes):
                child = try Self.partialNumber(bytes, start: start).map {
                    GeneratedContent(kind: .number($0), id: nextID(), isComplete: false)
                }
            case .literal:
                child = nil
            }
        }
        for index in stack.indices.reversed() {
            // Changed in place: a copy of the frame would share its arrays and dictionaries, and
            // the first change to the copy would duplicate them (every element, every token).
            if let child {
                if stack[index].isObject, let key = stack[index].key, stack[index].expect == .value {
                    let displaced = stack[index].properties.updateValue(child, forKey: key)
                    stack[index].displaced = displaced
                    stack[index].addedKey = displaced == nil
                    if displaced == nil { stack[index].keys.append(key) }
                    stack[index].holdsOpenChild = true
                } else if !stack[index].isObject {
                    stack[index].elements.append(child)
                    stack[index].holdsOpenChild = true
                }
            }
            let frame = stack[index]
            let kind: GeneratedContent.Kind =
                frame.isObject
                ? .structure(properties: frame.properties, orderedKeys: frame.keys) : .array(frame.elements)
            child = GeneratedContent(kind: kind, id: frame.id, isComplete: false)
        }
        return child
    }

    /// The whole document, which has ended.
    mutating func finish() throws(JSONSyntaxError) -> GeneratedContent {
        guard let value = try snapshot() else {
            throw JSONSyntaxError(offset: offset, message: "no value (the text is empty or ends too early)")
        }
        return value
    }

    // MARK: Reading bytes

    private mutating func consume(_ byte: UInt8) throws(JSONSyntaxError) {
        if let leaf {
            switch leaf {
            case .string(var string):
                self.leaf = nil  // keeps the string's storage unique while it grows
                if try read(byte, at: offset, into: &string) {
                    try finishString(string)
                } else {
                    self.leaf = .string(string)
                }
                return
            case .number(let start, var bytes):
                if Self.isNumberByte(byte) {
                    self.leaf = nil
                    bytes.append(byte)
                    self.leaf = .number(start: start, bytes: bytes)
                    return
                }
                // The byte that ends a number is read again below, in the container.
                self.leaf = nil
                try finishNumber(bytes, start: start)
            case .literal(let start, let word, let matched, let kind):
                guard byte == word[matched] else {
                    throw JSONSyntaxError(
                        offset: offset, message: "invalid literal (expected '\(String(decoding: word, as: UTF8.self))')"
                    )
                }
                if matched + 1 == word.count {
                    self.leaf = nil
                    try finishValue(GeneratedContent(kind: kind, id: nextID(), isComplete: true))
                } else {
                    self.leaf = .literal(start: start, word: word, matched: matched + 1, kind: kind)
                }
                return
            }
        }
        if Self.isWhitespace(byte) { return }
        guard var frame = stack.last else {
            if root != nil { throw JSONSyntaxError(offset: offset, message: "unexpected text after the value") }
            try startValue(byte)
            return
        }
        switch frame.expect {
        case .firstKeyOrEnd where byte == UInt8(ascii: "}"):
            try closeContainer()
        case .firstKeyOrEnd, .key:
            guard byte == UInt8(ascii: "\"") else {
                throw JSONSyntaxError(offset: offset, message: "expected a property name in quotes")
            }
            leaf = .string(StringLeaf(isKey: true))
        case .colon:
            guard byte == UInt8(ascii: ":") else {
                throw JSONSyntaxError(
                    offset: offset, message: "expected ':' after property name \"\(frame.key ?? "")\"")
            }
            frame.expect = .value
            stack[stack.count - 1] = frame
        case .value, .element:
            try startValue(byte)
        case .firstElementOrEnd:
            if byte == UInt8(ascii: "]") {
                try closeContainer()
            } else {
                frame.expect = .element
                stack[stack.count - 1] = frame
                try startValue(byte)
            }
        case .commaOrEnd:
            if frame.isObject {
                if byte == UInt8(ascii: ",") {
                    frame.expect = .key
                    frame.key = nil
                    stack[stack.count - 1] = frame
                } else if byte == UInt8(ascii: "}") {
                    try closeContainer()
                } else {
                    throw JSONSyntaxError(
                        offset: offset, message: "expected ',' or '}' after property \"\(frame.key ?? "")\"")
                }
            } else if byte == UInt8(ascii: ",") {
                frame.expect = .element
                stack[stack.count - 1] = frame
            } else if byte == UInt8(ascii: "]") {
                try closeContainer()
            } else {
                throw JSONSyntaxError(
                    offset: offset, message: "expected ',' or ']' after array element \(frame.elements.count - 1)")
            }
        }
    }

    private mutating func startValue(_ byte: UInt8) throws(JSONSyntaxError) {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard stack.count < Self.maximumDepth else {
                throw JSONSyntaxError(offset: offset, message: "nested more than \(Self.maximumDepth) levels deep")
            }
            let isObject = byte == UInt8(ascii: "{")
            stack.append(
                Frame(
                    isObject: isObject, id: nextID(), path: nextPath(),
                    expect: isObject ? .firstKeyOrEnd : .firstElementOrEnd))
        case UInt8(ascii: "\""):
            leaf = .string(StringLeaf(isKey: false))
        case UInt8(ascii: "t"):
            leaf = .literal(start: offset, word: Array("true".utf8), matched: 1, kind: .bool(true))
        case UInt8(ascii: "f"):
            leaf = .literal(start: offset, word: Array("false".utf8), matched: 1, kind: .bool(false))
        case UInt8(ascii: "n"):
            leaf = .literal(start: offset, word: Array("null".utf8), matched: 1, kind: .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            leaf = .number(start: offset, bytes: [byte])
        default:
            throw JSONSyntaxError(offset: offset, message: "unexpected character '\(Character(Unicode.Scalar(byte)))'")
        }
    }

    /// Adds a finished value to the container it is in (or makes it the document's value).
    private mutating func finishValue(_ value: GeneratedContent) throws(JSONSyntaxError) {
        guard var frame = stack.popLast() else {
            root = value
            return
        }
        if frame.isObject {
            let key = frame.key ?? ""
            if frame.properties.updateValue(value, forKey: key) == nil { frame.keys.append(key) }
        } else {
            frame.elements.append(value)
        }
        frame.expect = .commaOrEnd
        stack.append(frame)
    }

    private mutating func closeContainer() throws(JSONSyntaxError) {
        let frame = stack.removeLast()
        let kind: GeneratedContent.Kind =
            frame.isObject ? .structure(properties: frame.properties, orderedKeys: frame.keys) : .array(frame.elements)
        try finishValue(GeneratedContent(kind: kind, id: frame.id, isComplete: true))
    }

    private mutating func finishString(_ string: StringLeaf) throws(JSONSyntaxError) {
        if string.isKey {
            stack[stack.count - 1].key = string.text
            stack[stack.count - 1].expect = .colon
        } else {
            try finishValue(GeneratedContent(kind: .string(string.text), id: nextID(), isComplete: true))
        }
    }

    private mutating func finishNumber(_ bytes: [UInt8], start: Int) throws(JSONSyntaxError) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard Self.isValidNumber(bytes[...]), let value = Double(text) else {
            throw JSONSyntaxError(offset: start, message: "invalid number '\(text)'")
        }
        try finishValue(GeneratedContent(kind: .number(value), id: nextID(), isComplete: true))
    }

    // MARK: Strings

    /// Reads one byte of a string (at `position`); true at the closing quote.
    private func read(_ byte: UInt8, at position: Int, into string: inout StringLeaf) throws(JSONSyntaxError) -> Bool {
        if var escape = string.escape {
            escape.append(byte)
            guard let length = Self.escapeLength(escape) else {
                string.escape = escape
                return false
            }
            try decodeEscape(Array(escape.prefix(length)), start: string.escapeStart, into: &string)
            string.escape = nil
            // Bytes read ahead for a low surrogate that did not come are read again.
            var extraPosition = string.escapeStart + length
            for extra in escape.dropFirst(length) {
                if try read(extra, at: extraPosition, into: &string) { return true }
                extraPosition += 1
            }
            return false
        }
        switch byte {
        case UInt8(ascii: "\""):
            flush(&string)
            return true
        case UInt8(ascii: "\\"):
            flush(&string)
            string.escape = [byte]
            string.escapeStart = position
        default:
            string.raw.append(byte)
            if string.raw.count >= 256 { flush(&string) }
        }
        return false
    }

    /// Moves the raw bytes that form whole characters into the text.
    private func flush(_ string: inout StringLeaf) {
        guard !string.raw.isEmpty else { return }
        let whole = Self.wholeCharacterPrefix(string.raw)
        guard whole > 0 else { return }
        string.text += String(decoding: string.raw[..<whole], as: UTF8.self)
        string.raw.removeFirst(whole)
    }

    private mutating func flushRaw() {
        guard case .string(var string) = leaf else { return }
        leaf = nil
        flush(&string)
        leaf = .string(string)
    }

    private func decodeEscape(_ escape: [UInt8], start: Int, into string: inout StringLeaf) throws(JSONSyntaxError) {
        let quoted = [UInt8(ascii: "\"")] + escape + [UInt8(ascii: "\"")]
        do {
            let decoded = try JSONStringLiteral.decode(
                quoted, openingQuoteAt: 0, options: .init(loneSurrogates: .reject, allowsControlCharacters: true))
            string.text += String(decoding: decoded.utf8, as: UTF8.self)
        } catch {
            throw JSONSyntaxError(offset: start + error.offset - 1, message: error.message)
        }
    }

    /// How many bytes of `escape` (from its backslash) make one escape sequence; nil while more
    /// are needed. A high surrogate waits for the low one that may follow.
    private static func escapeLength(_ escape: [UInt8]) -> Int? {
        guard escape.count >= 2 else { return nil }
        guard escape[1] == UInt8(ascii: "u") else { return 2 }
        guard escape.count >= 6 else { return nil }
        guard let high = hexValue(escape[2..<6]), (0xD800...0xDBFF).contains(high) else { return 6 }
        guard escape.count >= 7 else { return nil }
        guard escape[6] == UInt8(ascii: "\\") else { return 6 }
        guard escape.count >= 8 else { return nil }
        guard escape[7] == UInt8(ascii: "u") else { return 6 }
        return escape.count >= 12 ? 12 : nil
    }

    private static func hexValue(_ digits: ArraySlice<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        for byte in digits {
            guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// The length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence.
    private static func wholeCharacterPrefix(_ bytes: [UInt8]) -> Int {
        var start = bytes.count - 1
        while start >= 0, bytes.count - start <= 4, bytes[start] & 0xC0 == 0x80 { start -= 1 }
        guard start >= 0 else { return bytes.count }
        let lead = bytes[start]
        let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        return bytes.count - start < length ? start : bytes.count
    }

    // MARK: Snapshots

    /// Takes the open children that the last snapshot put into their containers out again, from
    /// the outside in, so that each container's storage (and the string being read) is held
    /// only by this parser once the caller has let go of the snapshot.
    private mutating func detachOpenChildren() {
        for index in stack.indices where stack[index].holdsOpenChild {
            stack[index].holdsOpenChild = false
            if stack[index].isObject {
                if let key = stack[index].key {
                    if let displaced = stack[index].displaced {
                        stack[index].properties[key] = displaced
                    } else {
                        stack[index].properties.removeValue(forKey: key)
                    }
                    if stack[index].addedKey { stack[index].keys.removeLast() }
                    stack[index].displaced = nil
                    stack[index].addedKey = false
                }
            } else {
                stack[index].elements.removeLast()
            }
        }
    }

    /// The id of the value that starts next (in the innermost open container).
    private func nextID() -> GenerationID? {
        guard let base else { return nil }
        guard !stack.isEmpty else { return base }
        return GenerationID(derivedFrom: base, path: nextPath())
    }

    private func nextPath() -> String {
        guard let frame = stack.last else { return "$" }
        return frame.isObject ? "\(frame.path).\(frame.key ?? "")" : "\(frame.path)[\(frame.elements.count)]"
    }

    // MARK: Numbers

    /// A number cut off by the end of the text so far: its longest valid prefix (nil if that is
    /// only a sign).
    private static func partialNumber(_ bytes: [UInt8], start: Int) throws(JSONSyntaxError) -> Double? {
        var prefix = bytes[...]
        while !prefix.isEmpty, !isValidNumber(prefix) { prefix = prefix.dropLast() }
        guard !prefix.isEmpty, let value = Double(String(decoding: prefix, as: UTF8.self)) else {
            if bytes == [UInt8(ascii: "-")] { return nil }
            throw JSONSyntaxError(offset: start, message: "invalid number '\(String(decoding: bytes, as: UTF8.self))'")
        }
        return value
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
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
    private static func isValidNumber(_ text: ArraySlice<UInt8>) -> Bool {
        var characters = text
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
}
