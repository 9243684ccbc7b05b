/// A value while rendering: the public `TemplateValue` cases plus the runtime-only ones Jinja
/// has (undefined, tuples, namespaces, the loop object, callables).
enum Value {
    case undefined(Undefined)
    case none
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([Value])
    /// A Python tuple: behaves as a list, writes itself as `(a, b)`.
    case tuple([Value])
    case object(OrderedDict)
    case namespace(Namespace)
    case loop(LoopContext)
    case function(Function)

    init(_ value: TemplateValue) {
        switch value {
        case .none: self = .none
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .array(let items): self = .array(items.map(Value.init))
        case .object(let object):
            self = .object(OrderedDict(uniqueEntries: object.pairs.map { ($0.key, Value($0.value)) }))
        }
    }

    var isUndefined: Bool {
        if case .undefined = self { return true }
        return false
    }

    /// Python truthiness.
    var isTruthy: Bool {
        switch self {
        case .undefined, .none: return false
        case .bool(let value): return value
        case .int(let value): return value != 0
        case .double(let value): return value != 0
        case .string(let value): return !value.isEmpty
        case .array(let items), .tuple(let items): return !items.isEmpty
        case .object(let dict): return !dict.isEmpty
        case .namespace, .loop, .function: return true
        }
    }

    /// Python's type name, as error messages print it.
    var typeName: String {
        switch self {
        case .undefined: return "Undefined"
        case .none: return "NoneType"
        case .bool: return "bool"
        case .int: return "int"
        case .double: return "float"
        case .string: return "str"
        case .array: return "list"
        case .tuple: return "tuple"
        case .object: return "dict"
        case .namespace: return "Namespace"
        case .loop: return "LoopContext"
        case .function(let function):
            if case .method = function.kind { return "builtin_function_or_method" }
            return "function"
        }
    }

    /// Jinja's `object_type_repr`, used in "'dict object' has no attribute 'x'".
    var objectTypeDescription: String {
        if case .none = self { return "None" }
        return "\(typeName) object"
    }
}

/// Jinja's default `Undefined`: falsy, renders as empty, iterates as empty, and raises when
/// it is used as an object (attribute, subscript, call, arithmetic).
struct Undefined {
    /// The error message jinja2 would raise on misuse.
    var message: String

    static func name(_ name: String) -> Undefined { Undefined(message: "'\(name)' is undefined") }

    static func attribute(_ name: String, of object: Value) -> Undefined {
        Undefined(message: "'\(object.objectTypeDescription)' has no attribute '\(name)'")
    }

    static func element(_ key: Value, of object: Value) -> Undefined {
        if case .string(let name) = key { return attribute(name, of: object) }
        return Undefined(message: "'\(object.objectTypeDescription)' has no element \(PythonFormat.repr(key))")
    }
}

/// The dicts of a render.
typealias OrderedDict = OrderedStore<Value>

/// The object `namespace(...)` makes: the one mutable value, shared by reference so that
/// `{% set ns.x = ... %}` inside a loop is seen after it.
final class Namespace {
    var attributes: OrderedDict

    init(_ attributes: OrderedDict) { self.attributes = attributes }
}

/// The `loop` variable inside a `for` body.
final class LoopContext {
    let items: [Value]
    var index0 = 0

    init(items: [Value]) { self.items = items }

    func attribute(_ name: String) -> Value? {
        let length = items.count
        switch name {
        case "index0": return .int(index0)
        case "index": return .int(index0 + 1)
        case "revindex": return .int(length - index0)
        case "revindex0": return .int(length - index0 - 1)
        case "first": return .bool(index0 == 0)
        case "last": return .bool(index0 == length - 1)
        case "length": return .int(length)
        case "depth": return .int(1)
        case "depth0": return .int(0)
        case "previtem":
            return index0 > 0 ? items[index0 - 1] : .undefined(Undefined(message: "there is no previous item"))
        case "nextitem":
            return index0 + 1 < length ? items[index0 + 1] : .undefined(Undefined(message: "there is no next item"))
        case "cycle": return .function(Function(kind: .method(.loop(self), "cycle")))
        default: return nil
        }
    }
}

/// Something callable: a global function or a method bound to a value.
struct Function {
    indirect enum Kind {
        /// A global: `raise_exception`, `namespace`, `range`, `dict`, `strftime_now`.
        case global(String)
        /// A method of a value (`'abc'.upper`, `d.items`).
        case method(Value, String)
    }

    var kind: Kind
}
