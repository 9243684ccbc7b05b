/// Attribute and item access, slicing and iteration, with jinja2's sandbox semantics:
/// `a.b` tries Python attributes (methods) first, then the key; `a[b]` tries the key first,
/// then attributes; a miss gives undefined, and using an undefined value as an object fails.
extension Renderer {
    static let stringMethods: Set<String> = [
        "capitalize", "casefold", "center", "count", "encode", "endswith", "expandtabs", "find", "format",
        "format_map", "index", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier",
        "islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper", "join", "ljust", "lower",
        "lstrip", "maketrans", "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex",
        "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith", "strip", "swapcase",
        "title", "translate", "upper", "zfill",
    ]
    static let dictMethods: Set<String> = [
        "clear", "copy", "fromkeys", "get", "items", "keys", "pop", "popitem", "setdefault", "update", "values",
    ]
    static let listMethods: Set<String> = [
        "append", "clear", "copy", "count", "extend", "index", "insert", "pop", "remove", "reverse", "sort",
    ]

    private static func method(_ name: String, of value: Value) -> Value? {
        let names: Set<String>
        switch value {
        case .string: names = stringMethods
        case .object: names = dictMethods
        case .array: names = listMethods
        case .tuple: names = ["count", "index"]
        default: return nil
        }
        return names.contains(name) ? .function(Function(kind: .method(value, name))) : nil
    }

    /// `value.name`
    static func attribute(_ name: String, of value: Value) throws(Failure) -> Value {
        switch value {
        case .undefined(let undefined):
            throw Failure(.runtime, undefined.message)
        case .object(let dict):
            if let method = method(name, of: value) { return method }
            return dict[name] ?? .undefined(.attribute(name, of: value))
        case .namespace(let namespace):
            return namespace.attributes[name] ?? .undefined(.attribute(name, of: value))
        case .loop(let loop):
            return loop.attribute(name) ?? .undefined(.attribute(name, of: value))
        default:
            return method(name, of: value) ?? .undefined(.attribute(name, of: value))
        }
    }

    /// `value[key]`
    static func item(_ key: Value, of value: Value) throws(Failure) -> Value {
        switch value {
        case .undefined(let undefined):
            throw Failure(.runtime, undefined.message)
        case .object(let dict):
            if case .string(let name) = key {
                return dict[name] ?? method(name, of: value) ?? .undefined(.element(key, of: value))
            }
            return .undefined(.element(key, of: value))
        case .array(let items), .tuple(let items):
            if let index = integerIndex(key) {
                let resolved = index < 0 ? index + items.count : index
                return items.indices.contains(resolved) ? items[resolved] : .undefined(.element(key, of: value))
            }
        case .string(let text):
            if let index = integerIndex(key) {
                let scalars = Array(text.unicodeScalars)
                let resolved = index < 0 ? index + scalars.count : index
                guard scalars.indices.contains(resolved) else { return .undefined(.element(key, of: value)) }
                return .string(String(Character(scalars[resolved])))
            }
        case .namespace, .loop:
            if case .string(let name) = key { return try attribute(name, of: value) }
        default:
            break
        }
        if case .string(let name) = key, let method = method(name, of: value) { return method }
        return .undefined(.element(key, of: value))
    }

    private static func integerIndex(_ key: Value) -> Int? {
        switch key {
        case .int(let index): return index
        case .bool(let flag): return flag ? 1 : 0
        default: return nil
        }
    }

    /// `value[start:stop:step]` with Python's clamping and negative indices.
    static func slice(_ value: Value, start: Value?, stop: Value?, step: Value?) throws(Failure) -> Value {
        func bound(_ value: Value?) throws(Failure) -> Int? {
            guard let value else { return nil }
            switch value {
            case .none: return nil
            case .int(let number): return number
            case .bool(let flag): return flag ? 1 : 0
            default: throw Failure(.runtime, "slice indices must be integers or None")
            }
        }
        let stepValue = try bound(step) ?? 1
        if stepValue == 0 { throw Failure(.runtime, "slice step cannot be zero") }
        func indices(count: Int) throws(Failure) -> [Int] {
            func clamp(_ raw: Int?, defaultValue: Int, low: Int, high: Int) -> Int {
                guard var index = raw else { return defaultValue }
                if index < 0 { index += count }
                return min(max(index, low), high)
            }
            var result: [Int] = []
            if stepValue > 0 {
                var i = clamp(try bound(start), defaultValue: 0, low: 0, high: count)
                let end = clamp(try bound(stop), defaultValue: count, low: 0, high: count)
                while i < end {
                    result.append(i)
                    let (next, overflowed) = i.addingReportingOverflow(stepValue)
                    if overflowed { break }
                    i = next
                }
            } else {
                var i = clamp(try bound(start), defaultValue: count - 1, low: -1, high: count - 1)
                let end = clamp(try bound(stop), defaultValue: -1, low: -1, high: count - 1)
                while i > end {
                    result.append(i)
                    let (next, overflowed) = i.addingReportingOverflow(stepValue)
                    if overflowed { break }
                    i = next
                }
            }
            return result
        }
        switch value {
        case .undefined(let undefined):
            throw Failure(.runtime, undefined.message)
        case .array(let items):
            return .array(try indices(count: items.count).map { items[$0] })
        case .tuple(let items):
            return .tuple(try indices(count: items.count).map { items[$0] })
        case .string(let text):
            let scalars = Array(text.unicodeScalars)
            var out = String.UnicodeScalarView()
            for i in try indices(count: scalars.count) { out.append(scalars[i]) }
            return .string(String(out))
        default:
            throw Failure(.runtime, "'\(value.typeName)' object is not subscriptable")
        }
    }

    /// The items a `for` loop (or `list`, `join`, unpacking) sees: list items, dict keys, string
    /// characters; undefined iterates as empty.
    static func iterate(_ value: Value) throws(Failure) -> [Value] {
        switch value {
        case .undefined: return []
        case .array(let items), .tuple(let items): return items
        case .object(let dict): return dict.keys.map { .string($0) }
        case .string(let text): return text.unicodeScalars.map { .string(String(Character($0))) }
        default: throw Failure(.runtime, "'\(value.typeName)' object is not iterable")
        }
    }
}
