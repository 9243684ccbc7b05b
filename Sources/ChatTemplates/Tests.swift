/// The tests (`x is name`) this renderer implements, with jinja2's semantics. Any other test
/// name is rejected when the template is compiled.
enum Tests {
    static let names: Set<String> = [
        "defined", "undefined", "none", "string", "number", "integer", "float", "boolean", "true", "false",
        "mapping", "iterable", "sequence", "callable", "even", "odd", "divisibleby", "eq", "equalto", "==",
        "ne", "!=", "lt", "<", "le", "<=", "gt", ">", "ge", ">=", "in", "lower", "upper", "sameas",
    ]
}

extension Renderer {
    func test(_ name: String, _ value: Value, _ positional: [Value], _ keyword: [(String, Value)]) throws(Failure)
        -> Bool
    {
        func argument() throws(Failure) -> Value {
            try Parameters.bind(name, [("other", nil)], positional, keyword)[0]
        }
        func noArguments() throws(Failure) {
            _ = try Parameters.bind(name, [], positional, keyword)
        }
        switch name {
        case "defined":
            try noArguments()
            return !value.isUndefined
        case "undefined":
            try noArguments()
            return value.isUndefined
        case "none":
            try noArguments()
            if case .none = value { return true }
            return false
        case "string":
            try noArguments()
            if case .string = value { return true }
            return false
        case "number":
            try noArguments()
            switch value {
            case .int, .double, .bool: return true
            default: return false
            }
        case "integer":
            try noArguments()
            if case .int = value { return true }
            return false
        case "float":
            try noArguments()
            if case .double = value { return true }
            return false
        case "boolean":
            try noArguments()
            if case .bool = value { return true }
            return false
        case "true":
            try noArguments()
            if case .bool(true) = value { return true }
            return false
        case "false":
            try noArguments()
            if case .bool(false) = value { return true }
            return false
        case "mapping":
            try noArguments()
            if case .object = value { return true }
            return false
        case "iterable", "sequence":
            try noArguments()
            switch value {
            case .undefined, .string, .array, .tuple, .object: return true
            default: return false
            }
        case "callable":
            try noArguments()
            switch value {
            case .function, .namespace: return true
            default: return false
            }
        case "even", "odd":
            try noArguments()
            let remainder = try Operators.binary(.modulo, value, .int(2))
            return Operators.equal(remainder, .int(0)) == (name == "even")
        case "divisibleby":
            let remainder = try Operators.binary(.modulo, value, try argument())
            return Operators.equal(remainder, .int(0))
        case "eq", "equalto", "==": return try Operators.compare(.equal, value, argument())
        case "ne", "!=": return try Operators.compare(.notEqual, value, argument())
        case "lt", "<": return try Operators.compare(.less, value, argument())
        case "le", "<=": return try Operators.compare(.lessOrEqual, value, argument())
        case "gt", ">": return try Operators.compare(.greater, value, argument())
        case "ge", ">=": return try Operators.compare(.greaterOrEqual, value, argument())
        case "in": return try Operators.contains(argument(), value)
        case "lower", "upper":
            try noArguments()
            let text = PythonFormat.str(value)
            let cased = text.unicodeScalars.filter { $0.properties.isLowercase || $0.properties.isUppercase }
            guard !cased.isEmpty else { return false }
            return name == "lower" ? text == text.lowercased() : text == text.uppercased()
        case "sameas":
            // Python identity; only singletons (None, True, False) are identical by value.
            switch (value, try argument()) {
            case (.none, .none): return true
            case (.bool(let a), .bool(let b)): return a == b
            case (.namespace(let a), .namespace(let b)): return a === b
            default: return false
            }
        default:
            throw Failure(.unsupported, "unsupported test '\(name)'")
        }
    }
}
