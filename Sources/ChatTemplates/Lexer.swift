/// A token of a template: text between tags, tag delimiters, and expression tokens inside tags.
struct Token {
    enum Kind: Equatable {
        case text(String)
        case variableBegin, variableEnd
        case blockBegin, blockEnd
        case name(String)
        case string(String)
        case integer(Int)
        case float(Double)
        case op(String)
        case eof
    }

    var kind: Kind
    var location: SourceLocation
}

/// Splits a template into tokens the way jinja2's lexer does with Hugging Face's settings
/// (`trim_blocks=True`, `lstrip_blocks=True`, `keep_trailing_newline=False`):
/// - `{%-`, `{{-`, `{#-` strip all whitespace before the tag; `-%}`, `-}}`, `-#}` strip all
///   whitespace after it; `{%+` and `+%}` turn lstrip/trim off for that tag.
/// - trim_blocks drops the first newline after a block or comment tag.
/// - lstrip_blocks drops spaces and tabs between the start of a line and a block or comment tag.
/// - Inside a tag, `}}` and `%}` end it only when brackets are balanced, and string literals are
///   read whole, so `'{{"a": 1}}'` is a string and `{{ {'a': {'b': 1}} }}` an expression.
///
/// Just past 500 lines, as an exception: the text scanner and the tag scanner share the
/// whitespace-control state above, and read as one state machine.
struct Lexer {
    private let source: [Unicode.Scalar]
    private let lineStarts: [Int]
    private var pos = 0
    private var tokens: [Token] = []
    /// Whether the last thing consumed ended with a newline (lstrip applies at a template start).
    private var lineStarting = true

    init(_ text: String) {
        // Newlines become "\n"; one trailing newline is dropped (keep_trailing_newline=False).
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(text.unicodeScalars.count)
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\r" {
                scalars.append("\n")
                previousWasCR = true
                continue
            }
            if scalar == "\n" && previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = false
            scalars.append(scalar)
        }
        if scalars.last == "\n" { scalars.removeLast() }
        source = scalars
        var starts = [0]
        for (i, scalar) in scalars.enumerated() where scalar == "\n" { starts.append(i + 1) }
        lineStarts = starts
    }

    static func tokenize(_ text: String) throws(TemplateError) -> [Token] {
        var lexer = Lexer(text)
        try lexer.run()
        return lexer.tokens
    }

    func location(_ offset: Int) -> SourceLocation {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return SourceLocation(line: low + 1, column: offset - lineStarts[low] + 1)
    }

    private func syntaxError(_ message: String, at offset: Int) -> TemplateError {
        TemplateError(.syntax, message, at: location(offset))
    }

    private func at(_ offset: Int, _ text: String) -> Bool {
        var i = offset
        for scalar in text.unicodeScalars {
            guard i < source.count, source[i] == scalar else { return false }
            i += 1
        }
        return true
    }

    private func isSpace(_ i: Int) -> Bool { i < source.count && PythonFormat.isSpace(source[i]) }

    private func string(_ range: Range<Int>) -> String { TextOps.string(source[range]) }

    private static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
        }
        return scalar.properties.isAlphabetic
    }

    private static func isNameContinuation(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return isNameStart(scalar) || ("0"..."9").contains(scalar) }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    private enum TagKind { case block, variable, comment }

    private mutating func run() throws(TemplateError) {
        while pos < source.count {
            // Find the next tag opening.
            var start = pos
            var kind: TagKind?
            while start + 1 < source.count {
                if source[start] == "{" {
                    switch source[start + 1] {
                    case "%": kind = .block
                    case "{": kind = .variable
                    case "#": kind = .comment
                    default: break
                    }
                    if kind != nil { break }
                }
                start += 1
            }
            guard let kind else {
                emitText(pos..<source.count)
                pos = source.count
                break
            }
            let signOffset = start + 2
            let sign: Unicode.Scalar? =
                signOffset < source.count && (source[signOffset] == "-" || source[signOffset] == "+")
                ? source[signOffset] : nil
            var textEnd = start
            if sign == "-" {
                while textEnd > pos && PythonFormat.isSpace(source[textEnd - 1]) { textEnd -= 1 }
            } else if sign != "+" && kind != .variable {
                textEnd = lstripEnd(pos..<start)
            }
            emitText(pos..<textEnd)
            pos = signOffset + (sign == nil ? 0 : 1)
            lineStarting = false
            switch kind {
            case .comment: try skipComment(openedAt: start)
            case .block:
                if try lexRawBlock(openedAt: start) { continue }
                tokens.append(Token(kind: .blockBegin, location: location(start)))
                try lexTag(isBlock: true)
            case .variable:
                tokens.append(Token(kind: .variableBegin, location: location(start)))
                try lexTag(isBlock: false)
            }
        }
        tokens.append(Token(kind: .eof, location: location(source.count)))
    }

    /// lstrip_blocks: where text before a block tag should end, dropping a whitespace-only
    /// tail after the last newline (or the whole text when it begins a line).
    private func lstripEnd(_ range: Range<Int>) -> Int {
        var lineStart = range.lowerBound
        var i = range.upperBound
        while i > range.lowerBound {
            if source[i - 1] == "\n" {
                lineStart = i
                break
            }
            i -= 1
        }
        guard lineStart > range.lowerBound || lineStarting, lineStart < range.upperBound else {
            return range.upperBound
        }
        for j in lineStart..<range.upperBound where !PythonFormat.isSpace(source[j]) {
            return range.upperBound
        }
        return lineStart
    }

    private mutating func emitText(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        tokens.append(Token(kind: .text(string(range)), location: location(range.lowerBound)))
        lineStarting = source[range.upperBound - 1] == "\n"
    }

    /// After a tag's closing delimiter at `pos`: `-` strips all whitespace, `+` keeps it, and
    /// otherwise trim_blocks drops one newline (block and comment tags only).
    private mutating func finishTag(sign: Unicode.Scalar?, trim: Bool) {
        if sign == "-" {
            while isSpace(pos) { pos += 1 }
        } else if sign == nil && trim && pos < source.count && source[pos] == "\n" {
            pos += 1
        }
        lineStarting = pos > 0 && source[pos - 1] == "\n"
    }

    private mutating func skipComment(openedAt start: Int) throws(TemplateError) {
        var i = pos
        while i < source.count {
            if at(i, "-#}") || at(i, "+#}") {
                pos = i + 3
                finishTag(sign: source[i], trim: true)
                return
            }
            if at(i, "#}") {
                pos = i + 2
                finishTag(sign: nil, trim: true)
                return
            }
            i += 1
        }
        throw syntaxError("missing end of comment tag", at: start)
    }

    /// `{% raw %}…{% endraw %}`: the text between is output as is.
    private mutating func lexRawBlock(openedAt start: Int) throws(TemplateError) -> Bool {
        var i = pos
        while isSpace(i) { i += 1 }
        guard at(i, "raw") else { return false }
        i += 3
        while isSpace(i) { i += 1 }
        if at(i, "-%}") {
            i += 3
            while isSpace(i) { i += 1 }
        } else if at(i, "%}") {
            i += 2
        } else {
            return false
        }
        let contentStart = i
        while i + 1 < source.count {
            if source[i] == "{" && source[i + 1] == "%" {
                var j = i + 2
                let sign: Unicode.Scalar? = j < source.count && (source[j] == "-" || source[j] == "+") ? source[j] : nil
                if sign != nil { j += 1 }
                while isSpace(j) { j += 1 }
                if at(j, "endraw") {
                    j += 6
                    while isSpace(j) { j += 1 }
                    var endSign: Unicode.Scalar?
                    if at(j, "-%}") || at(j, "+%}") {
                        endSign = source[j]
                        j += 3
                    } else if at(j, "%}") {
                        j += 2
                    } else {
                        i += 1
                        continue
                    }
                    var textEnd = i
                    if sign == "-" {
                        while textEnd > contentStart && PythonFormat.isSpace(source[textEnd - 1]) { textEnd -= 1 }
                    } else if sign == nil {
                        lineStarting = contentStart > 0 && source[contentStart - 1] == "\n"
                        textEnd = lstripEnd(contentStart..<i)
                    }
                    emitText(contentStart..<textEnd)
                    pos = j
                    finishTag(sign: endSign, trim: true)
                    return true
                }
            }
            i += 1
        }
        throw syntaxError("missing end of raw directive", at: start)
    }

    private static let operators2: Set<String> = ["//", "**", "==", "!=", ">=", "<="]
    private static let operators1: Set<Unicode.Scalar> = [
        "+", "-", "/", "*", "%", "~", "[", "]", "(", ")", "{", "}", ">", "<", "=", ".", ":", "|", ",", ";",
    ]

    private mutating func lexTag(isBlock: Bool) throws(TemplateError) {
        var brackets: [Unicode.Scalar] = []
        while pos < source.count {
            if brackets.isEmpty {
                if isBlock {
                    if at(pos, "-%}") || at(pos, "+%}") {
                        let sign = source[pos]
                        tokens.append(Token(kind: .blockEnd, location: location(pos)))
                        pos += 3
                        finishTag(sign: sign, trim: true)
                        return
                    }
                    if at(pos, "%}") {
                        tokens.append(Token(kind: .blockEnd, location: location(pos)))
                        pos += 2
                        finishTag(sign: nil, trim: true)
                        return
                    }
                } else {
                    if at(pos, "-}}") {
                        tokens.append(Token(kind: .variableEnd, location: location(pos)))
                        pos += 3
                        finishTag(sign: "-", trim: false)
                        return
                    }
                    if at(pos, "}}") {
                        tokens.append(Token(kind: .variableEnd, location: location(pos)))
                        pos += 2
                        finishTag(sign: nil, trim: false)
                        return
                    }
                }
            }
            let scalar = source[pos]
            let start = pos
            if PythonFormat.isSpace(scalar) {
                pos += 1
            } else if let number = try lexNumber() {
                tokens.append(Token(kind: number, location: location(start)))
            } else if Self.isNameStart(scalar) {
                while pos < source.count, Self.isNameContinuation(source[pos]) { pos += 1 }
                tokens.append(Token(kind: .name(string(start..<pos)), location: location(start)))
            } else if scalar == "'" || scalar == "\"" {
                let value = try lexString()
                tokens.append(Token(kind: .string(value), location: location(start)))
            } else {
                let op: String
                if pos + 1 < source.count, Self.operators1.contains(source[pos + 1]) || source[pos + 1] == "!",
                    Self.operators2.contains(string(pos..<pos + 2))
                {
                    op = string(pos..<pos + 2)
                    pos += 2
                } else if Self.operators1.contains(scalar) {
                    op = String(Character(scalar))
                    pos += 1
                } else {
                    throw syntaxError("unexpected char '\(Character(scalar))'", at: pos)
                }
                switch op {
                case "(": brackets.append(")")
                case "[": brackets.append("]")
                case "{": brackets.append("}")
                case ")", "]", "}":
                    guard let expected = brackets.popLast() else { throw syntaxError("unexpected '\(op)'", at: start) }
                    if String(Character(expected)) != op {
                        throw syntaxError("unexpected '\(op)', expected '\(Character(expected))'", at: start)
                    }
                default: break
                }
                tokens.append(Token(kind: .op(op), location: location(start)))
            }
        }
        // The template ended inside a tag; the parser reports what it expected there.
    }

    private func isDigit(_ i: Int) -> Bool { i < source.count && ("0"..."9").contains(source[i]) }

    /// Digits with single underscores between them, from `i`; returns the end, or nil.
    private func digitRun(from i: Int) -> Int? {
        guard isDigit(i) else { return nil }
        var j = i + 1
        while true {
            if isDigit(j) {
                j += 1
            } else if j < source.count, source[j] == "_", isDigit(j + 1) {
                j += 2
            } else {
                return j
            }
        }
    }

    private func digits(_ range: Range<Int>) -> String {
        string(range).replacingUnderscores()
    }

    private mutating func lexNumber() throws(TemplateError) -> Token.Kind? {
        guard isDigit(pos) else { return nil }
        let start = pos
        // Float: digits, then either a fraction with optional exponent, or an exponent.
        if start == 0 || source[start - 1] != ".", let intEnd = digitRun(from: start) {
            var end = intEnd
            var isFloat = false
            if end < source.count, source[end] == ".", let fracEnd = digitRun(from: end + 1) {
                end = fracEnd
                isFloat = true
            }
            if end < source.count, source[end] == "e" || source[end] == "E" {
                var k = end + 1
                if k < source.count, source[k] == "+" || source[k] == "-" { k += 1 }
                if let expEnd = digitRun(from: k) {
                    end = expEnd
                    isFloat = true
                }
            }
            if isFloat {
                pos = end
                guard let value = Double(digits(start..<end)) else {
                    throw syntaxError("bad float literal", at: start)
                }
                return .float(value)
            }
        }
        // Integer: 0b/0o/0x prefixes, or decimal.
        if source[start] == "0", start + 1 < source.count {
            let radixChar = source[start + 1]
            let radix: Int? =
                switch radixChar {
                case "b", "B": 2
                case "o", "O": 8
                case "x", "X": 16
                default: nil
                }
            if let radix {
                var j = start + 2
                while j < source.count,
                    source[j] == "_" || Character(source[j]).hexDigitValue.map({ $0 < radix }) == true
                {
                    j += 1
                }
                if j > start + 2, let value = Int(digits(start + 2..<j), radix: radix) {
                    pos = j
                    return .integer(value)
                }
            }
        }
        let end: Int
        if source[start] == "0" {
            var j = start + 1
            while j < source.count,
                source[j] == "0" || (source[j] == "_" && j + 1 < source.count && source[j + 1] == "0")
            {
                j += 1
            }
            end = j
        } else {
            end = digitRun(from: start) ?? start + 1
        }
        guard let value = Int(digits(start..<end)) else {
            throw syntaxError("integer literal too large", at: start)
        }
        pos = end
        return .integer(value)
    }

    /// A quoted literal with Python's escapes (`\n`, `\t`, `\\`, `\'`, `\"`, `\xhh`, `\uXXXX`,
    /// octal, …); an unknown escape keeps its backslash, as Python does.
    private mutating func lexString() throws(TemplateError) -> String {
        let start = pos
        let quote = source[pos]
        pos += 1
        var out: [Unicode.Scalar] = []
        while true {
            guard pos < source.count else { throw syntaxError("unterminated string literal", at: start) }
            let scalar = source[pos]
            if scalar == quote {
                pos += 1
                return TextOps.string(out)
            }
            if scalar != "\\" {
                out.append(scalar)
                pos += 1
                continue
            }
            guard pos + 1 < source.count else { throw syntaxError("unterminated string literal", at: start) }
            let escape = source[pos + 1]
            pos += 2
            switch escape {
            case "\n": break
            case "\\", "'", "\"": out.append(escape)
            case "a": out.append("\u{07}")
            case "b": out.append("\u{08}")
            case "f": out.append("\u{0C}")
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "v": out.append("\u{0B}")
            case "0"..."7":
                var value = escape.value - 0x30
                var count = 1
                while count < 3, pos < source.count, ("0"..."7").contains(source[pos]) {
                    value = value * 8 + source[pos].value - 0x30
                    pos += 1
                    count += 1
                }
                out.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            case "x", "u", "U":
                let width = escape == "x" ? 2 : escape == "u" ? 4 : 8
                guard pos + width <= source.count,
                    let value = UInt32(string(pos..<pos + width), radix: 16),
                    string(pos..<pos + width).unicodeScalars.allSatisfy({ Character($0).isHexDigit })
                else {
                    throw syntaxError("truncated \\\(Character(escape)) escape in string literal", at: pos - 2)
                }
                guard let decoded = Unicode.Scalar(value) else {
                    throw syntaxError("invalid code point in string literal", at: pos - 2)
                }
                out.append(decoded)
                pos += width
            case "N":
                throw TemplateError(.unsupported, "unsupported escape '\\N{…}'", at: location(pos - 2))
            default:
                out.append("\\")
                out.append(escape)
            }
        }
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(unicodeScalars.filter { $0 != "_" }.map(Character.init))
    }
}
