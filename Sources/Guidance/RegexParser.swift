/// A parsed regular expression over Unicode scalars.
indirect enum RegexNode: Equatable {
    case empty
    case set(ScalarSet)
    case concatenation([RegexNode])
    case alternation([RegexNode])
    case repetition(RegexNode, min: Int, max: Int?)
}

/// Parses the common regular-expression subset (ECMAScript / Swift `Regex` syntax): literals,
/// escapes, classes, `.`, `\d \w \s` and their negations, groups (capturing, non-capturing,
/// named), `|`, `* + ? {m} {m,} {m,n}` (lazy forms too: the language is the same), and `^`/`$` at
/// the very start and end. The pattern must match the whole string.
///
/// Features that change the language in ways an automaton cannot follow here (lookaround,
/// backreferences, word boundaries, possessive quantifiers, inline flags, Unicode properties)
/// throw `unsupportedPattern` naming the feature and its offset.
struct RegexParser {
    private let scalars: [UInt32]
    private var position = 0
    /// Repetition counts above this are refused: they unroll into that many automaton copies.
    static let maximumRepetition = 10_000

    static func parse(_ pattern: String) throws -> RegexNode {
        var parser = RegexParser(scalars: pattern.unicodeScalars.map(\.value))
        return try parser.parseTop()
    }

    private init(scalars: [UInt32]) {
        self.scalars = scalars
    }

    private var atEnd: Bool { position >= scalars.count }
    private var current: UInt32? { atEnd ? nil : scalars[position] }

    private func peek(_ offset: Int = 0) -> UInt32? {
        position + offset < scalars.count ? scalars[position + offset] : nil
    }

    private func invalid(_ message: String, at offset: Int? = nil) -> GuidanceError {
        GuidanceError(.invalidPattern, message, offset: offset ?? position)
    }

    private func unsupported(_ feature: String, at offset: Int? = nil) -> GuidanceError {
        GuidanceError(.unsupportedPattern, "\(feature) is not supported", offset: offset ?? position)
    }

    private mutating func parseTop() throws -> RegexNode {
        let node = try parseAlternation(topLevel: true)
        if !atEnd { throw invalid("unmatched ')'") }
        return node
    }

    private mutating func parseAlternation(topLevel: Bool) throws -> RegexNode {
        var branches = [try parseSequence(topLevel: topLevel)]
        while current == ascii("|") {
            position += 1
            branches.append(try parseSequence(topLevel: topLevel))
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func parseSequence(topLevel: Bool) throws -> RegexNode {
        var items: [RegexNode] = []
        if topLevel && current == ascii("^") { position += 1 }
        while let scalar = current, scalar != ascii("|"), scalar != ascii(")") {
            if scalar == ascii("$") {
                let next = peek(1)
                if topLevel && (next == nil || next == ascii("|")) {
                    position += 1
                    break
                }
                throw unsupported("'$' anywhere but at the end of the pattern")
            }
            if scalar == ascii("^") { throw unsupported("'^' anywhere but at the start of the pattern") }
            let start = position
            let atom = try parseAtom()
            items.append(try parseQuantifiers(atom, start: start))
        }
        return items.count == 1 ? items[0] : (items.isEmpty ? .empty : .concatenation(items))
    }

    private mutating func parseQuantifiers(_ atom: RegexNode, start: Int) throws -> RegexNode {
        var node = atom
        while let scalar = current {
            var bounds: (Int, Int?)
            switch scalar {
            case ascii("*"): bounds = (0, nil)
            case ascii("+"): bounds = (1, nil)
            case ascii("?"): bounds = (0, 1)
            case ascii("{"):
                guard let counted = try parseBraces() else { return node }
                bounds = counted
                position -= 1  // parseBraces consumed through '}'; the common step below skips it
            default: return node
            }
            position += 1
            if current == ascii("?") {
                position += 1  // lazy: same set of matching strings
            } else if current == ascii("+") {
                throw unsupported("possessive quantifier")
            }
            node = .repetition(node, min: bounds.0, max: bounds.1)
        }
        return node
    }

    /// `{m}`, `{m,}`, `{m,n}` at the current '{', consumed through '}'; nil (nothing consumed)
    /// when the braces are not a quantifier, in which case '{' is a literal.
    private mutating func parseBraces() throws -> (Int, Int?)? {
        let start = position
        var index = position + 1
        func number() -> Int? {
            var value: Int?
            while index < scalars.count, let digit = Int(exactly: scalars[index]).map({ $0 - 0x30 }),
                (0...9).contains(digit)
            {
                value = min((value ?? 0) * 10 + digit, Int(Int32.max))
                index += 1
            }
            return value
        }
        guard let low = number() else { return nil }
        var high: Int? = low
        if index < scalars.count && scalars[index] == ascii(",") {
            index += 1
            high = number()
        }
        guard index < scalars.count && scalars[index] == ascii("}") else { return nil }
        position = index + 1
        if let high, high < low { throw invalid("quantifier {\(low),\(high)} has max below min", at: start) }
        if max(low, high ?? 0) > Self.maximumRepetition {
            throw GuidanceError(
                .tooLarge, "repetition count above \(Self.maximumRepetition)", offset: start)
        }
        return (low, high)
    }

    private mutating func parseAtom() throws -> RegexNode {
        let start = position
        let scalar = scalars[position]
        position += 1
        switch scalar {
        case ascii("."): return .set(.dot)
        case ascii("["): return .set(try parseClass(start: start))
        case ascii("("): return try parseGroup(start: start)
        case ascii("\\"): return try parseEscape(inClass: false)
        case ascii("*"), ascii("+"), ascii("?"): throw invalid("nothing to repeat", at: start)
        case ascii("{"):
            position -= 1
            if try parseBraces() != nil { throw invalid("nothing to repeat", at: start) }
            position += 1
            return .set(ScalarSet(scalar: scalar))
        default: return .set(ScalarSet(scalar: scalar))
        }
    }

    private mutating func parseGroup(start: Int) throws -> RegexNode {
        if current == ascii("?") {
            switch peek(1) {
            case ascii(":"):
                position += 2
            case ascii("="), ascii("!"):
                throw unsupported("lookahead", at: start)
            case ascii("<") where peek(2) == ascii("=") || peek(2) == ascii("!"):
                throw unsupported("lookbehind", at: start)
            case ascii("<"), ascii("P"), ascii("'"):
                // Named group: skip the name.
                let close = peek(1) == ascii("'") ? ascii("'") : ascii(">")
                while let scalar = current, scalar != close { position += 1 }
                guard current == close else { throw invalid("unterminated group name", at: start) }
                position += 1
            default:
                throw unsupported("inline flags or special group '(?'", at: start)
            }
        }
        let inner = try parseAlternation(topLevel: false)
        guard current == ascii(")") else { throw invalid("missing ')'", at: start) }
        position += 1
        return inner
    }

    private mutating func parseClass(start: Int) throws -> ScalarSet {
        var negated = false
        if current == ascii("^") {
            negated = true
            position += 1
        }
        var set = ScalarSet()
        while true {
            guard let scalar = current else { throw invalid("missing ']'", at: start) }
            if scalar == ascii("]") {
                position += 1
                break
            }
            if scalar == ascii("[") && peek(1) == ascii(":") { throw unsupported("POSIX class '[:…:]'") }
            let low = try parseClassMember()
            guard case .single(let lowScalar) = low else {
                if case .set(let members) = low { set = set.union(members) }
                continue
            }
            if current == ascii("-"), let next = peek(1), next != ascii("]") {
                position += 1
                let rangeStart = position
                let high = try parseClassMember()
                guard case .single(let highScalar) = high else {
                    throw invalid("class range ends in a class escape", at: rangeStart)
                }
                guard lowScalar <= highScalar else { throw invalid("class range out of order", at: rangeStart) }
                set.insert(lowScalar...highScalar)
            } else {
                set.insert(lowScalar...lowScalar)
            }
        }
        set = set.subtracting(ScalarSet([ScalarSet.surrogates]))
        return negated ? set.inverted() : set
    }

    private enum ClassMember {
        case single(UInt32)
        case set(ScalarSet)
    }

    private mutating func parseClassMember() throws -> ClassMember {
        let scalar = scalars[position]
        position += 1
        guard scalar == ascii("\\") else { return .single(scalar) }
        switch try parseEscape(inClass: true) {
        case .set(let set) where set.ranges.count == 1 && set.ranges[0].count == 1:
            return .single(set.ranges[0].lowerBound)
        case .set(let set): return .set(set)
        default: throw invalid("bad escape in class")
        }
    }

    /// After a backslash.
    private mutating func parseEscape(inClass: Bool) throws -> RegexNode {
        let start = position - 1
        guard let scalar = current else { throw invalid("pattern ends with '\\'", at: start) }
        position += 1
        switch scalar {
        case ascii("d"): return .set(.digits)
        case ascii("D"): return .set(ScalarSet.digits.inverted())
        case ascii("w"): return .set(.word)
        case ascii("W"): return .set(ScalarSet.word.inverted())
        case ascii("s"): return .set(.space)
        case ascii("S"): return .set(ScalarSet.space.inverted())
        case ascii("n"): return .set(ScalarSet(scalar: 0x0A))
        case ascii("r"): return .set(ScalarSet(scalar: 0x0D))
        case ascii("t"): return .set(ScalarSet(scalar: 0x09))
        case ascii("f"): return .set(ScalarSet(scalar: 0x0C))
        case ascii("v"): return .set(ScalarSet(scalar: 0x0B))
        case ascii("0"): return .set(ScalarSet(scalar: 0))
        case ascii("b"):
            if inClass { return .set(ScalarSet(scalar: 0x08)) }
            throw unsupported("word boundary '\\b'", at: start)
        case ascii("B"): throw unsupported("'\\B'", at: start)
        case ascii("1")...ascii("9"), ascii("k"): throw unsupported("backreference", at: start)
        case ascii("p"), ascii("P"):
            throw unsupported("Unicode property '\\\(Character(Unicode.Scalar(scalar)!))'", at: start)
        case ascii("x"):
            return .set(ScalarSet(scalar: try hexScalar(digits: 2, start: start)))
        case ascii("u"):
            if current == ascii("{") {
                position += 1
                var value: UInt32 = 0
                var count = 0
                while let digit = current.flatMap(hexValue) {
                    value = value &* 16 &+ digit
                    count += 1
                    position += 1
                    guard count <= 8 else { throw invalid("bad \\u{…} escape", at: start) }
                }
                guard count > 0, current == ascii("}"), value <= ScalarSet.maximum,
                    !ScalarSet.surrogates.contains(value)
                else { throw invalid("bad \\u{…} escape", at: start) }
                position += 1
                return .set(ScalarSet(scalar: value))
            }
            let value = try hexScalar(digits: 4, start: start)
            guard !ScalarSet.surrogates.contains(value) else {
                throw unsupported("surrogate escape '\\u\(String(value, radix: 16))'", at: start)
            }
            return .set(ScalarSet(scalar: value))
        case ascii("c"): throw unsupported("control escape '\\c'", at: start)
        default:
            if (ascii("a")...ascii("z")).contains(scalar) || (ascii("A")...ascii("Z")).contains(scalar) {
                throw invalid("unknown escape '\\\(Character(Unicode.Scalar(scalar)!))'", at: start)
            }
            return .set(ScalarSet(scalar: scalar))
        }
    }

    private mutating func hexScalar(digits: Int, start: Int) throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let digit = current.flatMap(hexValue) else { throw invalid("bad hexadecimal escape", at: start) }
            value = value * 16 + digit
            position += 1
        }
        return value
    }

    private func hexValue(_ scalar: UInt32) -> UInt32? {
        switch scalar {
        case 0x30...0x39: scalar - 0x30
        case 0x41...0x46: scalar - 0x41 + 10
        case 0x61...0x66: scalar - 0x61 + 10
        default: nil
        }
    }
}

@inline(__always)
private func ascii(_ character: Unicode.Scalar) -> UInt32 { character.value }
