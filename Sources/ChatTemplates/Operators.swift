#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Python's arithmetic and comparison semantics, which jinja2 expressions inherit: `bool` counts
/// as an integer, `/` always gives a float, `//` and `%` floor, `+` joins strings and lists but
/// refuses to mix types, `~` joins the `str()` of both sides.
enum Operators {
    private enum Number {
        case int(Int)
        case double(Double)

        var double: Double {
            switch self {
            case .int(let value): return Double(value)
            case .double(let value): return value
            }
        }
    }

    private static func number(_ value: Value) -> Number? {
        switch value {
        case .int(let value): return .int(value)
        case .bool(let value): return .int(value ? 1 : 0)
        case .double(let value): return .double(value)
        default: return nil
        }
    }

    private static func failIfUndefined(_ values: Value...) throws(Failure) {
        for value in values {
            if case .undefined(let undefined) = value { throw Failure(.runtime, undefined.message) }
        }
    }

    private static func unsupported(_ symbol: String, _ a: Value, _ b: Value) -> Failure {
        Failure(.runtime, "unsupported operand type(s) for \(symbol): '\(a.typeName)' and '\(b.typeName)'")
    }

    private static func overflow() -> Failure { Failure(.runtime, "integer overflow") }

    static func unary(_ op: UnaryOperator, _ value: Value) throws(Failure) -> Value {
        try failIfUndefined(value)
        guard let number = number(value) else {
            let symbol = op == .negate ? "-" : "+"
            throw Failure(.runtime, "bad operand type for unary \(symbol): '\(value.typeName)'")
        }
        switch (op, number) {
        case (.negate, .int(let v)):
            guard v != Int.min else { throw overflow() }
            return .int(-v)
        case (.negate, .double(let v)): return .double(-v)
        case (_, .int(let v)): return .int(v)
        case (_, .double(let v)): return .double(v)
        }
    }

    static func binary(_ op: BinaryOperator, _ a: Value, _ b: Value) throws(Failure) -> Value {
        if op == .concat { return .string(PythonFormat.str(a) + PythonFormat.str(b)) }
        try failIfUndefined(a, b)
        if let x = number(a), let y = number(b) { return try arithmetic(op, x, y) }
        switch (op, a, b) {
        case (.add, .string(let x), .string(let y)): return .string(x + y)
        case (.add, .array(let x), .array(let y)): return .array(x + y)
        case (.add, .tuple(let x), .tuple(let y)): return .tuple(x + y)
        case (.add, .string, _), (.add, .array, _), (.add, .tuple, _):
            throw Failure(.runtime, "can only concatenate \(a.typeName) (not \"\(b.typeName)\") to \(a.typeName)")
        case (.multiply, _, _):
            if let count = repeatCount(b), let repeated = try repeatValue(a, count) { return repeated }
            if let count = repeatCount(a), let repeated = try repeatValue(b, count) { return repeated }
        case (.modulo, .string, _):
            throw Failure(.unsupported, "unsupported '%' string formatting")
        default:
            break
        }
        throw unsupported(op.rawValue, a, b)
    }

    private static func repeatCount(_ value: Value) -> Int? {
        switch value {
        case .int(let count): return max(count, 0)
        case .bool(let flag): return flag ? 1 : 0
        default: return nil
        }
    }

    /// Results of `*` repetition larger than this are refused rather than exhausting memory.
    static let maximumRepeatedLength = 10_000_000

    private static func repeatValue(_ value: Value, _ count: Int) throws(Failure) -> Value? {
        let unit: Int
        switch value {
        case .string(let text): unit = text.utf8.count
        case .array(let items), .tuple(let items): unit = items.count
        default: return nil
        }
        let (total, overflowed) = unit.multipliedReportingOverflow(by: count)
        if overflowed || total > maximumRepeatedLength { throw Failure(.runtime, "repetition result too large") }
        switch value {
        case .string(let text): return .string(String(repeating: text, count: count))
        case .array(let items): return .array(Array([[Value]](repeating: items, count: count).joined()))
        case .tuple(let items): return .tuple(Array([[Value]](repeating: items, count: count).joined()))
        default: return nil
        }
    }

    private static func arithmetic(_ op: BinaryOperator, _ x: Number, _ y: Number) throws(Failure) -> Value {
        if case .divide = op {
            guard y.double != 0 else { throw Failure(.runtime, "division by zero") }
            return .double(x.double / y.double)
        }
        if case .int(let a) = x, case .int(let b) = y {
            switch op {
            case .add:
                let (result, overflowed) = a.addingReportingOverflow(b)
                if overflowed { throw overflow() }
                return .int(result)
            case .subtract:
                let (result, overflowed) = a.subtractingReportingOverflow(b)
                if overflowed { throw overflow() }
                return .int(result)
            case .multiply:
                let (result, overflowed) = a.multipliedReportingOverflow(by: b)
                if overflowed { throw overflow() }
                return .int(result)
            case .floorDivide, .modulo:
                guard b != 0 else { throw Failure(.runtime, "integer division or modulo by zero") }
                if a == Int.min && b == -1 { throw overflow() }
                var quotient = a / b
                var remainder = a % b
                if remainder != 0 && (remainder < 0) != (b < 0) {
                    quotient -= 1
                    remainder += b
                }
                return .int(op == .floorDivide ? quotient : remainder)
            case .power:
                if b < 0 { return .double(pow(Double(a), Double(b))) }
                var result = 1
                var base = a
                var exponent = b
                while exponent > 0 {
                    if exponent & 1 == 1 {
                        let (r, o) = result.multipliedReportingOverflow(by: base)
                        if o { throw overflow() }
                        result = r
                    }
                    exponent >>= 1
                    if exponent > 0 {
                        let (s, o) = base.multipliedReportingOverflow(by: base)
                        if o { throw overflow() }
                        base = s
                    }
                }
                return .int(result)
            case .divide, .concat:
                break
            }
        }
        let a = x.double
        let b = y.double
        switch op {
        case .add: return .double(a + b)
        case .subtract: return .double(a - b)
        case .multiply: return .double(a * b)
        case .floorDivide, .modulo:
            guard b != 0 else { throw Failure(.runtime, "float floor division by zero") }
            var remainder = a.truncatingRemainder(dividingBy: b)
            if remainder != 0 && (remainder < 0) != (b < 0) { remainder += b }
            if op == .modulo { return .double(remainder) }
            return .double(((a - remainder) / b).rounded())
        case .power:
            if a == 0 && b < 0 { throw Failure(.runtime, "0.0 cannot be raised to a negative power") }
            return .double(pow(a, b))
        case .divide, .concat:
            return .none
        }
    }

    // MARK: Comparison

    /// Python `==`: numbers across int/float/bool, strings by code point, lists and tuples item
    /// by item (a list never equals a tuple), dicts by key set; two undefined values are equal.
    static func equal(_ a: Value, _ b: Value) -> Bool {
        if let x = number(a), let y = number(b) {
            if case .int(let i) = x, case .int(let j) = y { return i == j }
            return x.double == y.double
        }
        switch (a, b) {
        case (.undefined, .undefined), (.none, .none): return true
        case (.string(let x), .string(let y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case (.array(let x), .array(let y)), (.tuple(let x), .tuple(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            for (key, value) in x.pairs {
                guard let other = y[key], equal(value, other) else { return false }
            }
            return true
        case (.namespace(let x), .namespace(let y)): return x === y
        case (.loop(let x), .loop(let y)): return x === y
        default: return false
        }
    }

    /// Python `<`; nil when the types do not order.
    private static func less(_ a: Value, _ b: Value) -> Bool? {
        if let x = number(a), let y = number(b) {
            if case .int(let i) = x, case .int(let j) = y { return i < j }
            return x.double < y.double
        }
        switch (a, b) {
        case (.string(let x), .string(let y)): return PythonOrder.less(x, y)
        case (.array(let x), .array(let y)), (.tuple(let x), .tuple(let y)):
            for (p, q) in zip(x, y) where !equal(p, q) { return less(p, q) }
            return x.count < y.count
        default: return nil
        }
    }

    static func compare(_ op: CompareOperator, _ a: Value, _ b: Value) throws(Failure) -> Bool {
        switch op {
        case .equal: return equal(a, b)
        case .notEqual: return !equal(a, b)
        case .in: return try contains(b, a)
        case .notIn: return try !contains(b, a)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            try failIfUndefined(a, b)
            if let x = number(a), let y = number(b) {
                if case .int(let i) = x, case .int(let j) = y {
                    return op == .less ? i < j : op == .lessOrEqual ? i <= j : op == .greater ? i > j : i >= j
                }
                let (p, q) = (x.double, y.double)
                return op == .less ? p < q : op == .lessOrEqual ? p <= q : op == .greater ? p > q : p >= q
            }
            let ordered: Bool?
            switch op {
            case .less: ordered = less(a, b)
            case .greater: ordered = less(b, a)
            case .lessOrEqual: ordered = less(b, a).map { !$0 }
            default: ordered = less(a, b).map { !$0 }
            }
            guard let ordered else {
                throw Failure(
                    .runtime, "'\(op.rawValue)' not supported between instances of '\(a.typeName)' and '\(b.typeName)'")
            }
            return ordered
        }
    }

    /// Python `needle in container`.
    static func contains(_ container: Value, _ needle: Value) throws(Failure) -> Bool {
        switch container {
        case .undefined: return false
        case .string(let text):
            guard case .string(let part) = needle else {
                throw Failure(.runtime, "'in <string>' requires string as left operand, not \(needle.typeName)")
            }
            return TextOps.find(part, in: text) != nil
        case .array(let items), .tuple(let items):
            return items.contains { equal($0, needle) }
        case .object(let dict):
            if case .string(let key) = needle { return dict[key] != nil }
            return false
        case .namespace(let namespace):
            if case .string(let key) = needle { return namespace.attributes[key] != nil }
            return false
        default:
            throw Failure(.runtime, "argument of type '\(container.typeName)' is not iterable")
        }
    }
}
