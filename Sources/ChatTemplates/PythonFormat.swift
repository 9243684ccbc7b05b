/// Python's `str()` and `repr()` of values, which Jinja uses to print them.
enum PythonFormat {
    /// `str(value)`; undefined prints as empty.
    static func str(_ value: Value) -> String {
        switch value {
        case .undefined: return ""
        case .string(let string): return string
        default:
            var out = ""
            write(value, repr: false, to: &out)
            return out
        }
    }

    /// `repr(value)`.
    static func repr(_ value: Value) -> String {
        var out = ""
        write(value, repr: true, to: &out)
        return out
    }

    private static func write(_ value: Value, repr: Bool, to out: inout String) {
        switch value {
        case .undefined: out += ""
        case .none: out += "None"
        case .bool(let flag): out += flag ? "True" : "False"
        case .int(let number): out += String(number)
        case .double(let number): out += float(number)
        case .string(let string): if repr { out += stringRepr(string) } else { out += string }
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += ", " }
                write(item, repr: true, to: &out)
            }
            out += "]"
        case .tuple(let items):
            out += "("
            for (i, item) in items.enumerated() {
                if i > 0 { out += ", " }
                write(item, repr: true, to: &out)
            }
            out += items.count == 1 ? ",)" : ")"
        case .object(let dict):
            writeDict(dict, to: &out)
        case .namespace(let namespace):
            out += "<Namespace "
            writeDict(namespace.attributes, to: &out)
            out += ">"
        case .loop(let loop): out += "<LoopContext \(loop.index0 + 1)/\(loop.items.count)>"
        case .function(let function):
            switch function.kind {
            case .global(let name): out += "<function \(name)>"
            case .method(let owner, let name): out += "<built-in method \(name) of \(owner.typeName) object>"
            }
        }
    }

    private static func writeDict(_ dict: OrderedDict, to out: inout String) {
        out += "{"
        for (i, pair) in dict.pairs.enumerated() {
            if i > 0 { out += ", " }
            out += stringRepr(pair.key)
            out += ": "
            write(pair.value, repr: true, to: &out)
        }
        out += "}"
    }

    /// `repr(float)`: the shortest digits that read back the same value, in fixed notation when
    /// the decimal exponent is in [-4, 16), otherwise scientific with a signed two-digit exponent.
    static func float(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        if value == 0 { return value.sign == .minus ? "-0.0" : "0.0" }
        // Swift's description also prints the shortest round-trip digits; only the layout differs.
        let (negative, digits, pointPosition) = decimalDigits(of: value)
        var out = negative ? "-" : ""
        if pointPosition > -4 && pointPosition <= 16 {
            if pointPosition <= 0 {
                out += "0." + String(repeating: "0", count: -pointPosition) + digits
            } else if pointPosition >= digits.count {
                out += digits + String(repeating: "0", count: pointPosition - digits.count) + ".0"
            } else {
                let split = digits.index(digits.startIndex, offsetBy: pointPosition)
                out += digits[..<split] + "." + digits[split...]
            }
        } else {
            out += String(digits.prefix(1))
            if digits.count > 1 { out += "." + digits.dropFirst() }
            let exponent = pointPosition - 1
            out += exponent < 0 ? "e-" : "e+"
            let magnitude = String(abs(exponent))
            out += magnitude.count < 2 ? "0" + magnitude : magnitude
        }
        return out
    }

    /// The significant digits of `value` (no leading or trailing zeros) and the position of the
    /// decimal point relative to their start: value = 0.d1d2… × 10^pointPosition.
    private static func decimalDigits(of value: Double) -> (negative: Bool, digits: String, pointPosition: Int) {
        var text = Substring(value.description)
        let negative = text.hasPrefix("-")
        if negative { text = text.dropFirst() }
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = text[..<e]
        }
        var integerPart = text
        var fractionPart: Substring = ""
        if let dot = text.firstIndex(of: ".") {
            integerPart = text[..<dot]
            fractionPart = text[text.index(after: dot)...]
        }
        var digits = String(integerPart) + fractionPart
        var pointPosition = integerPart.count + exponent
        while digits.hasPrefix("0") {
            digits.removeFirst()
            pointPosition -= 1
        }
        while digits.hasSuffix("0") { digits.removeLast() }
        return (negative, digits, pointPosition)
    }

    /// `repr(str)`: single quotes unless the text holds a single quote and no double quote.
    static func stringRepr(_ string: String) -> String {
        let scalars = string.unicodeScalars
        let quote: Unicode.Scalar = scalars.contains("'") && !scalars.contains("\"") ? "\"" : "'"
        var out = String.UnicodeScalarView()
        out.append(quote)
        for scalar in scalars {
            switch scalar {
            case quote, "\\":
                out.append("\\")
                out.append(scalar)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            default:
                if isPrintable(scalar) {
                    out.append(scalar)
                } else {
                    let v = scalar.value
                    let (prefix, width) = v < 0x100 ? ("\\x", 2) : v < 0x10000 ? ("\\u", 4) : ("\\U", 8)
                    out.append(contentsOf: (prefix + hex(v, width: width)).unicodeScalars)
                }
            }
        }
        out.append(quote)
        return String(out)
    }

    static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Python's `str.isprintable` for one character.
    static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == " " { return true }
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned,
            .lineSeparator, .paragraphSeparator, .spaceSeparator:
            return false
        default:
            return true
        }
    }

    /// Python's `str.isspace` for one character.
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x1C...0x20, 0x85, 0xA0: return true
        case 0..<0x80: return false
        default:
            let category = scalar.properties.generalCategory
            return category == .spaceSeparator || category == .lineSeparator
                || category == .paragraphSeparator
        }
    }
}
