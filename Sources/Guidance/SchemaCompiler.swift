/// Turns a `Schema` into a byte NFA for its JSON texts in Sotto's fixed layout.
///
/// Counts and lengths are unrolled (the schema is a tree, so the language is regular and the
/// automaton finite); `stateLimit` stops schemas whose expansion would be unreasonably large.
struct SchemaCompiler {
    private(set) var nfa: ByteNFA

    init(stateLimit: Int) {
        nfa = ByteNFA(stateLimit: stateLimit)
    }

    /// Compiles `schema`; returns the start and the accepting state.
    mutating func compile(_ schema: Schema) throws -> (start: Int32, final: Int32) {
        let start = try nfa.addState()
        let final = try emit(schema, from: start, path: "$")
        return (start, final)
    }

    private mutating func emit(_ schema: Schema, from: Int32, path: String) throws -> Int32 {
        do {
            return try emitUnattributed(schema, from: from, path: path)
        } catch let error as GuidanceError {
            throw error.at(path: path)
        }
    }

    private mutating func emitUnattributed(_ schema: Schema, from: Int32, path: String) throws -> Int32 {
        switch schema {
        case .object(let properties):
            return try object(properties, from: from, path: path)
        case .array(let element, let minCount, let maxCount):
            return try array(element, minCount: minCount ?? 0, maxCount: maxCount, from: from, path: path)
        case .string(let pattern, let choices, let maxLength):
            return try string(pattern: pattern, choices: choices, maxLength: maxLength, from: from)
        case .integer(let min, let max):
            return try integer(min: min ?? Int.min, max: max ?? Int.max, from: from)
        case .number(let min, let max):
            return try number(min: min, max: max, from: from)
        case .boolean:
            let end = try nfa.addState()
            try nfa.literal(Array("true".utf8), from: from, to: end)
            try nfa.literal(Array("false".utf8), from: from, to: end)
            return end
        case .constant(let value):
            return try nfa.literal(JSONText.quoted(value), from: from)
        case .null:
            return try nfa.literal(Array("null".utf8), from: from)
        case .anyObject(let maximumDepth):
            guard maximumDepth >= 1 else {
                throw GuidanceError(.invalidSchema, "anyObject needs a maximumDepth of at least 1, got \(maximumDepth)")
            }
            return try anyObject(depth: maximumDepth, from: from)
        case .anyOf(let options):
            guard !options.isEmpty else { throw GuidanceError(.invalidSchema, "anyOf needs at least one schema") }
            let end = try nfa.addState()
            var emptyOption: GuidanceError?
            var usable = 0
            for (index, option) in options.enumerated() {
                let optionStart = try nfa.addState()
                do {
                    let optionEnd = try emit(option, from: optionStart, path: "\(path).anyOf[\(index)]")
                    nfa.addEpsilon(from, optionStart)
                    nfa.addEpsilon(optionEnd, end)
                    usable += 1
                } catch let error as GuidanceError where error.kind == .emptyLanguage {
                    // An option nothing satisfies just drops out (its states stay unreachable).
                    emptyOption = error
                }
            }
            if usable == 0, let emptyOption { throw emptyOption }
            return end
        }
    }

    /// `{"a": …, "b": …}`. Two tracks run through the properties: "nothing written yet" and
    /// "something written", so that a comma precedes every property but the first present one.
    private mutating func object(_ properties: [Schema.Property], from: Int32, path: String) throws -> Int32 {
        var names = Set<String>()
        for property in properties where !names.insert(property.name).inserted {
            throw GuidanceError(.invalidSchema, "duplicate property '\(property.name)'")
        }
        var empty: Int32? = try nfa.literal([UInt8(ascii: "{")], from: from)
        var written: Int32?
        for property in properties {
            let valueStart = try nfa.addState()
            let key = JSONText.quoted(property.name) + Array(": ".utf8)
            if let empty { try nfa.literal(key, from: empty, to: valueStart) }
            if let written { try nfa.literal(Array(", ".utf8) + key, from: written, to: valueStart) }
            let valueEnd = try emit(property.schema, from: valueStart, path: path + "." + property.name)
            if property.isOptional {
                let nextWritten = try nfa.addState()
                nfa.addEpsilon(valueEnd, nextWritten)
                if let written { nfa.addEpsilon(written, nextWritten) }
                written = nextWritten
            } else {
                written = valueEnd
                empty = nil
            }
        }
        let end = try nfa.addState()
        if let empty { nfa.addEdge(empty, UInt8(ascii: "}"), end) }
        if let written { nfa.addEdge(written, UInt8(ascii: "}"), end) }
        return end
    }

    /// `[e, e, …]` with `minCount...maxCount` elements, each a fresh copy of the element automaton.
    private mutating func array(
        _ element: Schema, minCount: Int, maxCount: Int?, from: Int32, path: String
    ) throws -> Int32 {
        guard minCount >= 0, (maxCount ?? minCount) >= minCount else {
            throw GuidanceError(
                .invalidSchema, "array count range \(minCount)...\(maxCount.map(String.init) ?? "") is empty")
        }
        let elementPath = path + "[*]"
        let end = try nfa.addState()
        let open = try nfa.literal([UInt8(ascii: "[")], from: from)
        if minCount == 0 { nfa.addEdge(open, UInt8(ascii: "]"), end) }
        if maxCount == 0 { return end }
        var state = try emit(element, from: open, path: elementPath)
        var count = 1
        while count < max(minCount, 1) || (maxCount.map { count < $0 } ?? false) {
            if count >= minCount { nfa.addEdge(state, UInt8(ascii: "]"), end) }
            let separated = try nfa.literal(Array(", ".utf8), from: state)
            state = try emit(element, from: separated, path: elementPath)
            count += 1
        }
        nfa.addEdge(state, UInt8(ascii: "]"), end)
        if maxCount == nil {
            let separated = try nfa.literal(Array(", ".utf8), from: state)
            let again = try emit(element, from: separated, path: elementPath)
            nfa.addEpsilon(again, state)
        }
        return end
    }

    /// `{}` or `{"key": value, …}`: free keys, each value any JSON value at most `depth` − 1
    /// containers deep. Each level holds its own copy of the level below: what may follow a
    /// closing bracket depends on every container around it.
    private mutating func anyObject(depth: Int, from: Int32) throws -> Int32 {
        let open = try nfa.literal([UInt8(ascii: "{")], from: from)
        let end = try nfa.addState()
        nfa.addEdge(open, UInt8(ascii: "}"), end)
        let member = try nfa.addState()  // where a key starts: after "{" or ", ", never before "}"
        nfa.addEpsilon(open, member)
        let key = try nfa.freeString(from: member, maxLength: nil)
        let valueEnd = try anyValue(depth: depth - 1, from: try nfa.literal(Array(": ".utf8), from: key))
        nfa.addEdge(valueEnd, UInt8(ascii: "}"), end)
        nfa.addEpsilon(try nfa.literal(Array(", ".utf8), from: valueEnd), member)
        return end
    }

    /// `[]` or `[value, …]`, each value any JSON value at most `depth` − 1 containers deep.
    private mutating func anyArray(depth: Int, from: Int32) throws -> Int32 {
        let open = try nfa.literal([UInt8(ascii: "[")], from: from)
        let end = try nfa.addState()
        nfa.addEdge(open, UInt8(ascii: "]"), end)
        let element = try nfa.addState()
        nfa.addEpsilon(open, element)
        let valueEnd = try anyValue(depth: depth - 1, from: element)
        nfa.addEdge(valueEnd, UInt8(ascii: "]"), end)
        nfa.addEpsilon(try nfa.literal(Array(", ".utf8), from: valueEnd), element)
        return end
    }

    /// Any JSON value: a string, a number, `true`, `false`, `null`, and (while `depth` > 0) an
    /// object or an array at most `depth` containers deep.
    private mutating func anyValue(depth: Int, from: Int32) throws -> Int32 {
        let end = try nfa.addState()
        for scalar in [Schema.string(), .number(), .boolean, .null] {
            nfa.addEpsilon(try emitUnattributed(scalar, from: try branch(from), path: "$"), end)
        }
        if depth > 0 {
            nfa.addEpsilon(try anyObject(depth: depth, from: try branch(from)), end)
            nfa.addEpsilon(try anyArray(depth: depth, from: try branch(from)), end)
        }
        return end
    }

    /// A fresh state reached from `from` by an epsilon: where one of several alternatives starts.
    private mutating func branch(_ from: Int32) throws -> Int32 {
        let start = try nfa.addState()
        nfa.addEpsilon(from, start)
        return start
    }

    private mutating func string(pattern: String?, choices: [String]?, maxLength: Int?, from: Int32) throws -> Int32 {
        if let maxLength, maxLength < 0 { throw GuidanceError(.invalidSchema, "negative maxLength \(maxLength)") }
        let regex = try pattern.map { pattern in
            do {
                return try ScalarNFA(pattern: pattern, stateLimit: min(nfa.stateLimit, Grammar.patternStateLimit))
            } catch let error as GuidanceError {
                throw GuidanceError(error.kind, "pattern \(quote(pattern)): " + error.message, offset: error.offset)
            }
        }
        if let choices {
            let allowed = choices.filter { choice in
                (maxLength.map { choice.unicodeScalars.count <= $0 } ?? true) && (regex?.matches(choice) ?? true)
            }
            guard !allowed.isEmpty else {
                throw GuidanceError(.emptyLanguage, "no choice satisfies the pattern and maxLength")
            }
            let end = try nfa.addState()
            for choice in Set(allowed) { try nfa.literal(JSONText.quoted(choice), from: from, to: end) }
            return end
        }
        if let regex {
            let end = try nfa.patternString(regex, maxLength: maxLength, from: from)
            guard nfa.canReach(end, from: from) else {
                let limit = maxLength.map { " within \($0) characters" } ?? ""
                throw GuidanceError(.emptyLanguage, "no string matches pattern \(quote(pattern ?? ""))\(limit)")
            }
            return end
        }
        return try nfa.freeString(from: from, maxLength: maxLength)
    }

    private mutating func integer(min: Int, max: Int, from: Int32) throws -> Int32 {
        guard min <= max else { throw GuidanceError(.invalidSchema, "integer range \(min)...\(max) is empty") }
        let end = try nfa.addState()
        if min < 0 {
            let negative = try nfa.literal([UInt8(ascii: "-")], from: from)
            let nearest = max < 0 ? max.magnitude : 1
            try nfa.unsignedRange(low: Digits.of(nearest), high: Digits.of(min.magnitude), from: negative, to: end)
        }
        if max >= 0 {
            try nfa.unsignedRange(
                low: Digits.of(Swift.max(min, 0).magnitude), high: Digits.of(max.magnitude), from: from, to: end)
        }
        return end
    }

    private mutating func number(min: Double?, max: Double?, from: Int32) throws -> Int32 {
        for bound in [min, max].compactMap({ $0 }) where !bound.isFinite {
            throw GuidanceError(.invalidSchema, "number bound \(bound) is not finite")
        }
        if let min, let max, min > max { throw GuidanceError(.invalidSchema, "number range \(min)...\(max) is empty") }
        let low = min.map(DecimalDigits.init(magnitudeOf:))
        let high = max.map(DecimalDigits.init(magnitudeOf:))
        let fractionDigits = Swift.max(
            Schema.maximumFractionDigits, low?.fraction.count ?? 0, high?.fraction.count ?? 0)
        guard fractionDigits <= 64 else {
            throw GuidanceError(.invalidSchema, "number bounds need more than 64 fraction digits")
        }
        let integerDigits = Schema.maximumUnboundedIntegerDigits
        let end = try nfa.addState()
        if min.map({ $0 < 0 }) ?? true {
            // Negative values, as magnitudes; zero itself is written without a sign.
            let negative = try nfa.literal([UInt8(ascii: "-")], from: from)
            let smallest = DecimalDigits(
                integer: [0], fraction: [UInt8](repeating: 0, count: fractionDigits - 1) + [1])
            let nearest = max.flatMap { $0 < 0 ? DecimalDigits(magnitudeOf: $0) : nil } ?? smallest
            try nfa.decimalRange(
                low: nearest, high: min == nil ? nil : low, unboundedIntegerDigits: integerDigits,
                maxFractionDigits: fractionDigits, from: negative, to: end)
        }
        if max.map({ $0 >= 0 }) ?? true {
            let floor = min.flatMap { $0 > 0 ? low : nil } ?? .zero
            try nfa.decimalRange(
                low: floor, high: high, unboundedIntegerDigits: integerDigits, maxFractionDigits: fractionDigits,
                from: from, to: end)
        }
        guard nfa.canReach(end, from: from) else {
            throw GuidanceError(
                .emptyLanguage,
                "no number of at most \(fractionDigits) fraction digits lies in \(min ?? -.infinity)...\(max ?? .infinity)"
            )
        }
        return end
    }
}

private func quote(_ text: String) -> String {
    "\"" + text + "\""
}
