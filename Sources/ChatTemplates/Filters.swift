/// Binds call arguments to named parameters, as Python would.
enum Parameters {
    /// `parameters`: names with defaults; a nil default marks a required parameter.
    static func bind(
        _ function: String, _ parameters: [(String, Value?)], _ positional: [Value], _ keyword: [(String, Value)]
    ) throws(Failure) -> [Value] {
        if positional.count > parameters.count {
            throw Failure(
                .runtime, "\(function)() takes at most \(parameters.count) arguments (\(positional.count) given)")
        }
        var values: [Value?] = parameters.map(\.1)
        var given = [Bool](repeating: false, count: parameters.count)
        for (i, value) in positional.enumerated() {
            values[i] = value
            given[i] = true
        }
        for (name, value) in keyword {
            guard let i = parameters.firstIndex(where: { $0.0 == name }) else {
                throw Failure(.runtime, "\(function)() got an unexpected keyword argument '\(name)'")
            }
            if given[i] { throw Failure(.runtime, "\(function)() got multiple values for argument '\(name)'") }
            values[i] = value
            given[i] = true
        }
        var result: [Value] = []
        for (i, value) in values.enumerated() {
            guard let value else {
                throw Failure(.runtime, "\(function)() missing required argument '\(parameters[i].0)'")
            }
            result.append(value)
        }
        return result
    }
}

/// The filters this renderer implements (jinja2's built-ins of the same name, and Hugging
/// Face's `tojson`). Any other filter name is rejected when the template is compiled.
enum Filters {
    static let names: Set<String> = [
        "tojson", "trim", "length", "count", "upper", "lower", "string", "default", "d", "join", "first", "last",
        "capitalize", "title", "replace", "list", "reverse", "int", "float", "abs", "items", "map", "select",
        "reject", "selectattr", "rejectattr", "safe", "indent", "sum",
    ]
}

extension Renderer {
    func filter(_ name: String, _ value: Value, _ positional: [Value], _ keyword: [(String, Value)]) throws(Failure)
        -> Value
    {
        func bind(_ parameters: [(String, Value?)]) throws(Failure) -> [Value] {
            try Parameters.bind(name, parameters, positional, keyword)
        }
        switch name {
        case "tojson":
            let a = try bind([
                ("ensure_ascii", .bool(false)), ("indent", Value.none), ("separators", Value.none),
                ("sort_keys", .bool(false)),
            ])
            return .string(
                try Self.json(
                    value, ensureASCII: a[0].isTruthy, indent: a[1], separators: a[2], sortKeys: a[3].isTruthy))
        case "trim":
            let a = try bind([("chars", Value.none)])
            return .string(TextOps.strip(PythonFormat.str(value), try Self.optionalString(a[0], "trim")))
        case "length", "count":
            _ = try bind([])
            return .int(try Self.length(value))
        case "upper":
            _ = try bind([])
            return .string(TextOps.upper(PythonFormat.str(value)))
        case "lower":
            _ = try bind([])
            return .string(TextOps.lower(PythonFormat.str(value)))
        case "capitalize":
            _ = try bind([])
            return .string(TextOps.capitalize(PythonFormat.str(value)))
        case "title":
            _ = try bind([])
            return .string(TextOps.title(PythonFormat.str(value)))
        case "string":
            _ = try bind([])
            return .string(PythonFormat.str(value))
        case "safe":
            _ = try bind([])
            return value
        case "default", "d":
            let a = try bind([("default_value", .string("")), ("boolean", .bool(false))])
            if value.isUndefined || (a[1].isTruthy && !value.isTruthy) { return a[0] }
            return value
        case "join":
            let a = try bind([("d", .string("")), ("attribute", Value.none)])
            var items = try Self.iterate(value)
            if case .none = a[1] {
            } else {
                items = try items.map { (item) throws(Failure) in try Self.attributePath(a[1], of: item) }
            }
            return .string(items.map(PythonFormat.str).joined(separator: PythonFormat.str(a[0])))
        case "first":
            _ = try bind([])
            return try Self.iterate(value).first ?? .undefined(Undefined(message: "No first item, sequence was empty."))
        case "last":
            _ = try bind([])
            return try Self.iterate(value).last ?? .undefined(Undefined(message: "No last item, sequence was empty."))
        case "replace":
            let a = try bind([("old", nil), ("new", nil), ("count", Value.none)])
            var count = -1
            if case .int(let n) = a[2] { count = n }
            return .string(
                TextOps.replace(PythonFormat.str(value), PythonFormat.str(a[0]), PythonFormat.str(a[1]), count: count))
        case "list":
            _ = try bind([])
            return .array(try Self.iterate(value))
        case "reverse":
            _ = try bind([])
            if case .string(let text) = value { return .string(TextOps.string(text.unicodeScalars.reversed())) }
            return .array(try Self.iterate(value).reversed())
        case "int":
            let a = try bind([("default", .int(0)), ("base", .int(10))])
            return Self.toInt(value, default: a[0], base: a[1])
        case "float":
            let a = try bind([("default", .double(0))])
            return Self.toFloat(value) ?? a[0]
        case "abs":
            _ = try bind([])
            switch value {
            case .int(let n):
                guard n != Int.min else { throw Failure(.runtime, "integer overflow") }
                return .int(abs(n))
            case .bool(let flag): return .int(flag ? 1 : 0)
            case .double(let d): return .double(abs(d))
            default: throw Failure(.runtime, "bad operand type for abs(): '\(value.typeName)'")
            }
        case "items":
            _ = try bind([])
            switch value {
            case .undefined: return .array([])
            case .object(let dict): return .array(dict.pairs.map { .tuple([.string($0.key), $0.value]) })
            default: throw Failure(.runtime, "Can only get item pairs from a mapping.")
            }
        case "indent":
            let a = try bind([("width", .int(4)), ("first", .bool(false)), ("blank", .bool(false))])
            var prefix = "    "
            if case .string(let given) = a[0] {
                prefix = given
            } else if case .int(let n) = a[0] {
                prefix = try Self.spaces(n)
            }
            return .string(
                Self.indent(PythonFormat.str(value), prefix: prefix, first: a[1].isTruthy, blank: a[2].isTruthy))
        case "sum":
            let a = try bind([("attribute", Value.none), ("start", .int(0))])
            var total = a[1]
            for item in try Self.iterate(value) {
                var term = item
                if case .none = a[0] {} else { term = try Self.attributePath(a[0], of: item) }
                total = try Operators.binary(.add, total, term)
            }
            return total
        case "map":
            return try map(value, positional, keyword)
        case "select", "reject", "selectattr", "rejectattr":
            return try select(name, value, positional, keyword)
        default:
            throw Failure(.unsupported, "unsupported filter '\(name)'")
        }
    }

    private func map(_ value: Value, _ positional: [Value], _ keyword: [(String, Value)]) throws(Failure) -> Value {
        let items = try Self.iterate(value)
        if positional.isEmpty, keyword.contains(where: { $0.0 == "attribute" }) {
            let a = try Parameters.bind(
                "map", [("attribute", nil), ("default", .undefined(.name("default")))], [], keyword)
            return .array(
                try items.map { (item) throws(Failure) in
                    let result = try Self.attributePath(a[0], of: item)
                    if result.isUndefined, !a[1].isUndefined { return a[1] }
                    return result
                })
        }
        guard case .string(let filterName)? = positional.first else {
            throw Failure(.runtime, "map requires a filter name or attribute=")
        }
        guard Filters.names.contains(filterName) else {
            throw Failure(.unsupported, "unsupported filter '\(filterName)'")
        }
        let rest = Array(positional.dropFirst())
        return .array(try items.map { (item) throws(Failure) in try filter(filterName, item, rest, keyword) })
    }

    private func select(_ name: String, _ value: Value, _ positional: [Value], _ keyword: [(String, Value)])
        throws(Failure) -> Value
    {
        if !keyword.isEmpty { throw Failure(.unsupported, "unsupported keyword arguments to \(name)") }
        let byAttribute = name.hasSuffix("attr")
        let keep = name.hasPrefix("select")
        var arguments = positional
        var attribute: Value?
        if byAttribute {
            guard !arguments.isEmpty else { throw Failure(.runtime, "\(name)() missing required argument 'attribute'") }
            attribute = arguments.removeFirst()
        }
        var testName: String?
        if !arguments.isEmpty {
            guard case .string(let given) = arguments.removeFirst() else {
                throw Failure(.runtime, "test name must be a string")
            }
            guard Tests.names.contains(given) else { throw Failure(.unsupported, "unsupported test '\(given)'") }
            testName = given
        }
        var result: [Value] = []
        for item in try Self.iterate(value) {
            let subject = try attribute.map { (path) throws(Failure) in try Self.attributePath(path, of: item) } ?? item
            let passes =
                try testName.map { (test) throws(Failure) in try self.test(test, subject, arguments, []) }
                ?? subject.isTruthy
            if passes == keep { result.append(item) }
        }
        return .array(result)
    }

    /// jinja2's attribute getter for `map(attribute=)`, `join(attribute=)` and friends: dotted
    /// parts, integer parts as indices, each looked up as `item[part]`.
    static func attributePath(_ path: Value, of item: Value) throws(Failure) -> Value {
        if case .int = path { return try Self.item(path, of: item) }
        var current = item
        for part in PythonFormat.str(path).split(separator: ".", omittingEmptySubsequences: false) {
            let key: Value = Int(part).map { .int($0) } ?? .string(String(part))
            current = try Self.item(key, of: current)
        }
        return current
    }

    /// `n` spaces for an indent, refusing widths no template needs (they would exhaust memory).
    private static func spaces(_ n: Int) throws(Failure) -> String {
        guard n <= 1_000 else { throw Failure(.runtime, "indent width \(n) too large") }
        return String(repeating: " ", count: max(n, 0))
    }

    static func length(_ value: Value) throws(Failure) -> Int {
        switch value {
        case .undefined: return 0
        case .string(let text): return text.unicodeScalars.count
        case .array(let items), .tuple(let items): return items.count
        case .object(let dict): return dict.count
        default: throw Failure(.runtime, "object of type '\(value.typeName)' has no len()")
        }
    }

    private static func optionalString(_ value: Value, _ function: String) throws(Failure) -> String? {
        switch value {
        case .none: return nil
        case .string(let text): return text
        default: throw Failure(.runtime, "\(function)() argument must be str or None, not \(value.typeName)")
        }
    }

    static func json(_ value: Value, ensureASCII: Bool, indent: Value, separators: Value, sortKeys: Bool)
        throws(Failure) -> String
    {
        var indentText: String?
        switch indent {
        case .none: indentText = nil
        case .int(let n): indentText = try Self.spaces(n)
        case .string(let text): indentText = text
        default: throw Failure(.runtime, "tojson indent must be an integer or a string")
        }
        var separatorPair: (String, String)?
        switch separators {
        case .none: separatorPair = nil
        case .array(let items) where items.count == 2, .tuple(let items) where items.count == 2:
            separatorPair = (PythonFormat.str(items[0]), PythonFormat.str(items[1]))
        default: throw Failure(.runtime, "tojson separators must be a pair of strings")
        }
        var writer = JSONWriter(indent: indentText, separators: separatorPair)
        writer.ensureASCII = ensureASCII
        writer.sortKeys = sortKeys
        try writer.write(value)
        return writer.output
    }

    private static func toInt(_ value: Value, default fallback: Value, base: Value) -> Value {
        switch value {
        case .int(let n): return .int(n)
        case .bool(let flag): return .int(flag ? 1 : 0)
        case .double(let d):
            guard d.isFinite, let n = Int(exactly: d.rounded(.towardZero)) else { return fallback }
            return .int(n)
        case .string(let text):
            let trimmed = TextOps.strip(text, nil).replacingOccurrencesOfUnderscore()
            var radix = 10
            if case .int(let b) = base, (2...36).contains(b) { radix = b }
            if let n = Int(trimmed, radix: radix) { return .int(n) }
            if let d = Double(trimmed), d.isFinite, let n = Int(exactly: d.rounded(.towardZero)) { return .int(n) }
            return fallback
        default:
            return fallback
        }
    }

    private static func toFloat(_ value: Value) -> Value? {
        switch value {
        case .int(let n): return .double(Double(n))
        case .bool(let flag): return .double(flag ? 1 : 0)
        case .double: return value
        case .string(let text):
            let trimmed = TextOps.strip(text, nil)
            switch trimmed.lowercased() {
            case "inf", "+inf", "infinity", "+infinity": return .double(.infinity)
            case "-inf", "-infinity": return .double(-.infinity)
            case "nan", "+nan", "-nan": return .double(.nan)
            default: return Double(trimmed.replacingOccurrencesOfUnderscore()).map { .double($0) }
            }
        default: return nil
        }
    }

    /// jinja2's `indent`: every line but the first (unless `first`) gets the prefix; blank lines
    /// only with `blank`.
    private static func indent(_ text: String, prefix: String, first: Bool, blank: Bool) -> String {
        var lines = TextOps.splitLines(text + "\n")
        var result: String
        if blank {
            result = lines.joined(separator: "\n" + prefix)
        } else {
            result = lines.isEmpty ? "" : lines.removeFirst()
            if !lines.isEmpty {
                result += "\n" + lines.map { $0.isEmpty ? $0 : prefix + $0 }.joined(separator: "\n")
            }
        }
        return first ? prefix + result : result
    }
}

extension String {
    fileprivate func replacingOccurrencesOfUnderscore() -> String {
        TextOps.string(unicodeScalars.filter { $0 != "_" })
    }
}
