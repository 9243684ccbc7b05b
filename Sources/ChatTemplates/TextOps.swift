/// Python `str` operations, by Unicode scalar (code point) as Python counts, not by Swift
/// `Character`: `"\r\n"` is two characters and `"é"` never equals `"e\u{301}"`.
enum TextOps {
    typealias Scalars = [Unicode.Scalar]

    static func scalars(_ text: String) -> Scalars { Array(text.unicodeScalars) }

    /// A string from scalars, built through UTF-8 (appending to a `UnicodeScalarView` one scalar
    /// at a time is several times slower).
    static func string<C: Collection>(_ scalars: C) -> String where C.Element == Unicode.Scalar {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(scalars.count)
        for scalar in scalars {
            if scalar.isASCII {
                bytes.append(UInt8(scalar.value))
            } else {
                bytes.append(contentsOf: UTF8.encode(scalar)!)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Scalar offset of the first occurrence of `needle` in `haystack` at or after `from`.
    static func find(_ needle: String, in haystack: String, from start: Int = 0) -> Int? {
        find(scalars(needle), in: scalars(haystack), from: start)
    }

    static func find(_ needle: Scalars, in haystack: Scalars, from start: Int = 0) -> Int? {
        if needle.isEmpty { return start <= haystack.count ? start : nil }
        guard haystack.count >= needle.count else { return nil }
        var i = start
        while i + needle.count <= haystack.count {
            if haystack[i] == needle[0] && haystack[i..<i + needle.count].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    static func hasPrefix(_ text: String, _ prefix: String) -> Bool {
        text.unicodeScalars.starts(with: prefix.unicodeScalars)
    }

    static func hasSuffix(_ text: String, _ suffix: String) -> Bool {
        text.unicodeScalars.reversed().starts(with: suffix.unicodeScalars.reversed())
    }

    /// `str.strip/lstrip/rstrip(chars)`; `nil` strips whitespace.
    static func strip(_ text: String, _ chars: String?, leading: Bool = true, trailing: Bool = true) -> String {
        let set = chars.map { Set($0.unicodeScalars) }
        func drop(_ scalar: Unicode.Scalar) -> Bool { set?.contains(scalar) ?? PythonFormat.isSpace(scalar) }
        let all = scalars(text)
        var start = 0
        var end = all.count
        if leading { while start < end && drop(all[start]) { start += 1 } }
        if trailing { while end > start && drop(all[end - 1]) { end -= 1 } }
        return string(all[start..<end])
    }

    /// `str.split(sep, maxsplit)`; a nil separator splits on whitespace runs and drops empties.
    static func split(_ text: String, separator: String?, maxSplit: Int = -1) throws(Failure) -> [String] {
        let all = scalars(text)
        var parts: [String] = []
        guard let separator else {
            var i = 0
            while true {
                while i < all.count && PythonFormat.isSpace(all[i]) { i += 1 }
                if i == all.count { break }
                if maxSplit >= 0 && parts.count == maxSplit {
                    var end = all.count
                    while end > i && PythonFormat.isSpace(all[end - 1]) { end -= 1 }
                    parts.append(string(all[i..<end]))
                    break
                }
                let start = i
                while i < all.count && !PythonFormat.isSpace(all[i]) { i += 1 }
                parts.append(string(all[start..<i]))
            }
            return parts
        }
        let sep = scalars(separator)
        if sep.isEmpty { throw Failure(.runtime, "empty separator") }
        var start = 0
        while maxSplit < 0 || parts.count < maxSplit, let found = find(sep, in: all, from: start) {
            parts.append(string(all[start..<found]))
            start = found + sep.count
        }
        parts.append(string(all[start...]))
        return parts
    }

    /// `str.replace(old, new, count)`.
    static func replace(_ text: String, _ old: String, _ new: String, count: Int = -1) -> String {
        let all = scalars(text)
        let oldScalars = scalars(old)
        var out = String.UnicodeScalarView()
        var replaced = 0
        if oldScalars.isEmpty {
            // Python inserts `new` between every character and at both ends.
            for scalar in all {
                if count < 0 || replaced < count {
                    out.append(contentsOf: new.unicodeScalars)
                    replaced += 1
                }
                out.append(scalar)
            }
            if count < 0 || replaced < count { out.append(contentsOf: new.unicodeScalars) }
            return String(out)
        }
        var i = 0
        while i < all.count {
            if count < 0 || replaced < count, let found = find(oldScalars, in: all, from: i) {
                out.append(contentsOf: all[i..<found])
                out.append(contentsOf: new.unicodeScalars)
                i = found + oldScalars.count
                replaced += 1
            } else {
                out.append(contentsOf: all[i...])
                break
            }
        }
        return String(out)
    }

    static func upper(_ text: String) -> String { text.uppercased() }
    static func lower(_ text: String) -> String { text.lowercased() }

    /// `str.capitalize()`: first character upper case, the rest lower case.
    static func capitalize(_ text: String) -> String {
        guard let first = text.unicodeScalars.first else { return "" }
        return String(first).uppercased() + string(text.unicodeScalars.dropFirst()).lowercased()
    }

    /// jinja2's `title` filter: each word (split before `-`, whitespace, `(`, `{`, `[`, `<`)
    /// gets an upper-case first character and lower-case rest.
    static func title(_ text: String) -> String {
        var out = ""
        var word = String.UnicodeScalarView()
        var inSeparators = false
        func flush() {
            if !word.isEmpty {
                out += inSeparators ? String(word) : capitalize(String(word))
                word = String.UnicodeScalarView()
            }
        }
        for scalar in text.unicodeScalars {
            let isSeparator = PythonFormat.isSpace(scalar) || "-({[<".unicodeScalars.contains(scalar)
            if isSeparator != inSeparators {
                flush()
                inSeparators = isSeparator
            }
            word.append(scalar)
        }
        flush()
        return out
    }

    /// `str.splitlines()`: splits at every line boundary Python knows, dropping the breaks.
    static func splitLines(_ text: String) -> [String] {
        let all = scalars(text)
        var lines: [String] = []
        var start = 0
        var i = 0
        while i < all.count {
            switch all[i].value {
            case 0x0A, 0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029:
                lines.append(string(all[start..<i]))
                start = i + 1
            case 0x0D:
                lines.append(string(all[start..<i]))
                if i + 1 < all.count && all[i + 1] == "\n" { i += 1 }
                start = i + 1
            default:
                break
            }
            i += 1
        }
        if start < all.count { lines.append(string(all[start...])) }
        return lines
    }
}
