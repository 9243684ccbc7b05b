/// Writes values as Python's `json.dumps` does, which is what Hugging Face's `tojson` filter
/// calls: `json.dumps(x, ensure_ascii=False, indent=indent, separators=separators,
/// sort_keys=sort_keys)`.
struct JSONWriter {
    /// Per-level indentation; `nil` writes everything on one line.
    var indent: String?
    var itemSeparator: String
    var keySeparator: String
    var sortKeys = false
    var ensureASCII = false
    private(set) var output = ""

    init(indent: String?, separators: (item: String, key: String)? = nil) {
        self.indent = indent
        // json.dumps: (", ", ": ") on one line, ("," , ": ") with an indent.
        itemSeparator = separators?.item ?? (indent == nil ? ", " : ",")
        keySeparator = separators?.key ?? ": "
    }

    mutating func write(_ value: Value) throws(Failure) {
        try write(value, level: 0)
    }

    private mutating func newline(level: Int) {
        guard let indent else { return }
        output += "\n"
        for _ in 0..<level { output += indent }
    }

    private mutating func write(_ value: Value, level: Int) throws(Failure) {
        switch value {
        case .none: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .int(let number): output += String(number)
        case .double(let number):
            if number.isNaN {
                output += "NaN"
            } else if number.isInfinite {
                output += number < 0 ? "-Infinity" : "Infinity"
            } else {
                output += PythonFormat.float(number)
            }
        case .string(let string): writeString(string)
        case .array(let items), .tuple(let items):
            if items.isEmpty {
                output += "[]"
                return
            }
            output += "["
            for (i, item) in items.enumerated() {
                if i > 0 { output += itemSeparator }
                newline(level: level + 1)
                try write(item, level: level + 1)
            }
            newline(level: level)
            output += "]"
        case .object(let dict):
            if dict.isEmpty {
                output += "{}"
                return
            }
            output += "{"
            let keys = sortKeys ? dict.keys.sorted(by: PythonOrder.less) : dict.keys
            for (i, key) in keys.enumerated() {
                if i > 0 { output += itemSeparator }
                newline(level: level + 1)
                writeString(key)
                output += keySeparator
                try write(dict[key]!, level: level + 1)
            }
            newline(level: level)
            output += "}"
        case .undefined, .namespace, .loop, .function:
            throw Failure(.runtime, "Object of type \(value.typeName) is not JSON serializable")
        }
    }

    private mutating func writeString(_ string: String) {
        output += "\""
        // Most strings need no escape: append them whole.
        let needsEscape = string.utf8.contains { byte in
            byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (ensureASCII && byte > 0x7E)
        }
        guard needsEscape else {
            output += string
            output += "\""
            return
        }
        var out = String.UnicodeScalarView()
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out.append(contentsOf: "\\\"".unicodeScalars)
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            case "\u{08}": out.append(contentsOf: "\\b".unicodeScalars)
            case "\u{0C}": out.append(contentsOf: "\\f".unicodeScalars)
            default:
                if scalar.value < 0x20 || (ensureASCII && scalar.value > 0x7E) {
                    appendEscape(scalar.value, to: &out)
                } else {
                    out.append(scalar)
                }
            }
        }
        output += String(out)
        output += "\""
    }

    private func appendEscape(_ value: UInt32, to out: inout String.UnicodeScalarView) {
        if value >= 0x10000 {
            let v = value - 0x10000
            appendEscape(0xD800 + (v >> 10), to: &out)
            appendEscape(0xDC00 + (v & 0x3FF), to: &out)
            return
        }
        out.append(contentsOf: ("\\u" + PythonFormat.hex(value, width: 4)).unicodeScalars)
    }
}

/// A rendering failure without a position yet; the evaluator adds the position of the
/// expression that caused it.
struct Failure: Error {
    var kind: TemplateError.Kind
    var message: String

    init(_ kind: TemplateError.Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

/// Python's ordering of strings: by code point.
enum PythonOrder {
    static func less(_ a: String, _ b: String) -> Bool {
        a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
    }
}
