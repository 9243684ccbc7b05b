/// JSON string literals (RFC 8259 §7), decoded in one place: the escapes `\"`, `\\`, `\/`, `\b`,
/// `\f`, `\n`, `\r`, `\t` and `\uXXXX` (a surrogate pair joined into one scalar). The template
/// engine's `fromjson` and the streaming parser of model output both read strings with it; what
/// differs between them is an option, not a second parser.
///
/// ```swift
/// let bytes = Array(#""caf\u00e9" tail"#.utf8)
/// let (utf8, end) = try JSONStringLiteral.decode(bytes, openingQuoteAt: 0)
/// // String(decoding: utf8, as: UTF8.self) == "café", end == 12 (just past the closing quote)
/// ```
public enum JSONStringLiteral {
    /// What to do with a `\uD800`…`\uDFFF` escape that is not one half of a pair.
    public enum LoneSurrogates: Sendable {
        /// Decode it as U+FFFD (Python's `json` keeps it, and a Swift string cannot).
        case replace
        /// Throw: the text is not valid Unicode.
        case reject
    }

    /// How strictly to read.
    public struct Options: Sendable {
        public var loneSurrogates: LoneSurrogates
        /// Whether raw U+0000…U+001F may stand inside the quotes (JSON requires them escaped).
        public var allowsControlCharacters: Bool

        public init(loneSurrogates: LoneSurrogates = .reject, allowsControlCharacters: Bool = false) {
            self.loneSurrogates = loneSurrogates
            self.allowsControlCharacters = allowsControlCharacters
        }
    }

    /// Invalid string syntax at a byte offset.
    public struct Failure: Error, Sendable, Equatable {
        /// Byte offset of the offending byte.
        public let offset: Int
        /// What is wrong there.
        public let message: String
    }

    /// The string whose opening quote is at `start`: its UTF-8, and the index just past its
    /// closing quote, or nil when `bytes` end first (the UTF-8 then holds what came before the
    /// end, without an escape the end cut short).
    ///
    /// - Throws: ``Failure`` for an unknown escape, a bad hex digit, a raw control character
    ///   (unless allowed) or a lone surrogate (when rejected).
    public static func decode(
        _ bytes: [UInt8], openingQuoteAt start: Int, options: Options = Options()
    ) throws(Failure) -> (utf8: [UInt8], end: Int?) {
        precondition(start < bytes.count && bytes[start] == UInt8(ascii: "\""), "no opening quote at \(start)")
        var utf8: [UInt8] = []
        var index = start + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return (utf8, index + 1) }
            if byte < 0x20, !options.allowsControlCharacters {
                throw Failure(offset: index, message: "control character in string")
            }
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { return (utf8, nil) }
            let escape = bytes[index + 1]
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "u"):
                guard let (scalar, length) = try unicodeEscape(bytes, at: index, options: options) else {
                    return (utf8, nil)
                }
                utf8 += Array(String(Character(scalar)).utf8)
                index += length
                continue
            default:
                throw Failure(offset: index, message: "invalid escape '\\\(Character(Unicode.Scalar(escape)))'")
            }
            index += 2
        }
        return (utf8, nil)
    }

    /// The scalar of the `\uXXXX` escape at `start` (joined with a following low surrogate when it
    /// is a high one) and how many bytes it took; nil when the input ends inside it.
    private static func unicodeEscape(_ bytes: [UInt8], at start: Int, options: Options) throws(Failure) -> (
        Unicode.Scalar, Int
    )? {
        guard let high = try hexQuad(bytes, at: start + 2) else { return nil }
        if (0xD800...0xDBFF).contains(high) {
            let next = start + 6
            // The end may still bring the low half.
            if next >= bytes.count || (next + 1 >= bytes.count && bytes[next] == UInt8(ascii: "\\")) { return nil }
            if bytes[next] == UInt8(ascii: "\\"), bytes[next + 1] == UInt8(ascii: "u") {
                guard let low = try hexQuad(bytes, at: next + 2) else { return nil }
                if (0xDC00...0xDFFF).contains(low) {
                    return (Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!, 12)
                }
                if options.loneSurrogates == .reject {
                    throw Failure(offset: next, message: "invalid low surrogate in \\u escape")
                }
            }
        }
        if let scalar = Unicode.Scalar(high) { return (scalar, 6) }
        guard options.loneSurrogates == .replace else {
            throw Failure(offset: start, message: "unpaired surrogate in \\u escape")
        }
        return ("\u{FFFD}", 6)
    }

    /// The four hex digits at `start`; nil when the input ends before them.
    private static func hexQuad(_ bytes: [UInt8], at start: Int) throws(Failure) -> UInt32? {
        var value: UInt32 = 0
        for position in start..<(start + 4) {
            guard position < bytes.count else { return nil }
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw Failure(offset: position, message: "invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
        }
        return value
    }

    /// Appends `text` to `output` as a JSON string literal: quotes, with `"`, `\\` and the control
    /// characters escaped (the short escapes where JSON has them) and everything else as it is.
    public static func encode(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    /// `text` as a JSON string literal (see `encode(_:to:)`).
    public static func encode(_ text: String) -> String {
        var output = ""
        encode(text, to: &output)
        return output
    }
}
