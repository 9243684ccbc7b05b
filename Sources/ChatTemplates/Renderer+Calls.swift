#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Calls: the globals (`raise_exception`, `namespace`, `range`, `dict`, `strftime_now`) and the
/// non-mutating methods of strings, dicts and the loop object. Mutating methods (`append`,
/// `update`, …) are refused, as Hugging Face's immutable sandbox refuses them.
extension Renderer {
    func call(_ callee: Value, _ positional: [Value], _ keyword: [(String, Value)]) throws(Failure) -> Value {
        switch callee {
        case .undefined(let undefined):
            throw Failure(.runtime, undefined.message)
        case .function(let function):
            switch function.kind {
            case .global(let name): return try callGlobal(name, positional, keyword)
            case .method(let owner, let name): return try callMethod(name, of: owner, positional, keyword)
            }
        default:
            throw Failure(.runtime, "'\(callee.typeName)' object is not callable")
        }
    }

    private func callGlobal(_ name: String, _ positional: [Value], _ keyword: [(String, Value)]) throws(Failure)
        -> Value
    {
        switch name {
        case "raise_exception":
            let a = try Parameters.bind(name, [("message", nil)], positional, keyword)
            throw Failure(.raised, PythonFormat.str(a[0]))
        case "namespace", "dict":
            if positional.count > 1 { throw Failure(.runtime, "\(name)() takes at most 1 positional argument") }
            var attributes = OrderedDict()
            if let initial = positional.first {
                guard case .object(let dict) = initial else {
                    throw Failure(.unsupported, "unsupported \(name)() argument of type '\(initial.typeName)'")
                }
                attributes = dict
            }
            for (key, value) in keyword { attributes[key] = value }
            return name == "dict" ? .object(attributes) : .namespace(Namespace(attributes))
        case "range":
            if !keyword.isEmpty { throw Failure(.runtime, "range() takes no keyword arguments") }
            var bounds: [Int] = []
            for value in positional {
                switch value {
                case .int(let n): bounds.append(n)
                case .bool(let flag): bounds.append(flag ? 1 : 0)
                default: throw Failure(.runtime, "'\(value.typeName)' object cannot be interpreted as an integer")
                }
            }
            let (start, stop, step): (Int, Int, Int)
            switch bounds.count {
            case 1: (start, stop, step) = (0, bounds[0], 1)
            case 2: (start, stop, step) = (bounds[0], bounds[1], 1)
            case 3: (start, stop, step) = (bounds[0], bounds[1], bounds[2])
            default: throw Failure(.runtime, "range expected 1 to 3 arguments, got \(bounds.count)")
            }
            if step == 0 { throw Failure(.runtime, "range() arg 3 must not be zero") }
            // jinja2's sandbox limit, checked before allocating.
            let span = step > 0 ? Double(stop) - Double(start) : Double(start) - Double(stop)
            if span / Double(step.magnitude) > 100_000 {
                throw Failure(.runtime, "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).")
            }
            return .array(stride(from: start, to: stop, by: step).map { .int($0) })
        case "strftime_now":
            let a = try Parameters.bind(name, [("format", nil)], positional, keyword)
            return .string(Self.formatNow(PythonFormat.str(a[0])))
        default:
            throw Failure(.unsupported, "unsupported function '\(name)'")
        }
    }

    /// Local time now, through C's `strftime` (what Python's `datetime.strftime` uses).
    static func formatNow(_ format: String) -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 512)
        let count = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func callMethod(_ name: String, of owner: Value, _ positional: [Value], _ keyword: [(String, Value)])
        throws(Failure) -> Value
    {
        func bind(_ parameters: [(String, Value?)]) throws(Failure) -> [Value] {
            try Parameters.bind(name, parameters, positional, keyword)
        }
        func text(_ value: Value) throws(Failure) -> String {
            guard case .string(let string) = value else {
                throw Failure(.runtime, "\(name)() argument must be str, not \(value.typeName)")
            }
            return string
        }
        func optionalText(_ value: Value) throws(Failure) -> String? {
            if case .none = value { return nil }
            return try text(value)
        }
        switch owner {
        case .string(let string):
            switch name {
            case "startswith", "endswith":
                let a = try bind([("prefix", nil)])
                let candidates: [Value]
                switch a[0] {
                case .tuple(let items), .array(let items): candidates = items
                default: candidates = [a[0]]
                }
                for candidate in candidates {
                    let part = try text(candidate)
                    if name == "startswith" ? TextOps.hasPrefix(string, part) : TextOps.hasSuffix(string, part) {
                        return .bool(true)
                    }
                }
                return .bool(false)
            case "strip", "lstrip", "rstrip":
                let a = try bind([("chars", Value.none)])
                return .string(
                    TextOps.strip(string, try optionalText(a[0]), leading: name != "rstrip", trailing: name != "lstrip")
                )
            case "split":
                let a = try bind([("sep", Value.none), ("maxsplit", .int(-1))])
                guard case .int(let maxSplit) = a[1] else { throw Failure(.runtime, "maxsplit must be an integer") }
                return .array(
                    try TextOps.split(string, separator: try optionalText(a[0]), maxSplit: maxSplit).map { .string($0) }
                )
            case "splitlines":
                _ = try bind([])
                return .array(TextOps.splitLines(string).map { .string($0) })
            case "upper":
                _ = try bind([])
                return .string(TextOps.upper(string))
            case "lower":
                _ = try bind([])
                return .string(TextOps.lower(string))
            case "capitalize":
                _ = try bind([])
                return .string(TextOps.capitalize(string))
            case "replace":
                let a = try bind([("old", nil), ("new", nil), ("count", .int(-1))])
                guard case .int(let count) = a[2] else { throw Failure(.runtime, "count must be an integer") }
                return .string(TextOps.replace(string, try text(a[0]), try text(a[1]), count: count))
            case "find":
                let a = try bind([("sub", nil)])
                return .int(TextOps.find(try text(a[0]), in: string) ?? -1)
            case "join":
                let a = try bind([("iterable", nil)])
                var parts: [String] = []
                for item in try Self.iterate(a[0]) { parts.append(try text(item)) }
                return .string(parts.joined(separator: string))
            default:
                break
            }
        case .object(let dict):
            switch name {
            case "items":
                _ = try bind([])
                return .array(dict.pairs.map { .tuple([.string($0.key), $0.value]) })
            case "keys":
                _ = try bind([])
                return .array(dict.keys.map { .string($0) })
            case "values":
                _ = try bind([])
                return .array(dict.values)
            case "get":
                let a = try bind([("key", nil), ("default", Value.none)])
                guard case .string(let key) = a[0] else { return a[1] }
                return dict[key] ?? a[1]
            default:
                break
            }
        case .loop(let loop):
            if name == "cycle" {
                guard !positional.isEmpty else { throw Failure(.runtime, "no items for cycling given") }
                return positional[loop.index0 % positional.count]
            }
        default:
            break
        }
        throw Failure(.unsupported, "unsupported method '\(name)' of '\(owner.typeName)'")
    }
}
