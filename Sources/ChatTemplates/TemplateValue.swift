/// A value passed into a chat template: the JSON-like data model of Jinja's context.
///
/// Objects keep their keys in insertion order, because `tojson` writes them in that order
/// (Python's `json.dumps` without `sort_keys`), and tool definitions must reach the model exactly
/// as the reference renderer would write them.
///
/// ```swift
/// let message: TemplateValue = ["role": "user", "content": "Hi"]
/// ```
public indirect enum TemplateValue: Sendable, Equatable {
    /// JSON `null`, Python `None`.
    case none
    case bool(Bool)
    /// An integer; Python keeps `1` and `1.0` apart (`{{ 1 }}` prints `1`, `{{ 1.0 }}` prints `1.0`).
    case int(Int)
    case double(Double)
    case string(String)
    case array([TemplateValue])
    /// An object whose keys keep their insertion order.
    case object(TemplateObject)

    /// The value under `key` when this is an object, else `nil`.
    public subscript(key: String) -> TemplateValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The string payload, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [TemplateValue]? {
        if case .array(let value) = self { return value }
        return nil
    }
}

/// An object (JSON object, Python dict) whose keys keep their insertion order.
///
/// Equality compares keys in order, as the rendered JSON of two objects differs when their key
/// order differs.
public struct TemplateObject: Sendable, Equatable {
    private var store = OrderedStore<TemplateValue>()

    /// Creates an object from key–value pairs. A repeated key keeps its first position and its
    /// last value, as a Python dict built from the same pairs would.
    public init(_ pairs: [(String, TemplateValue)]) {
        for (key, value) in pairs { store[key] = value }
    }

    /// An empty object.
    public init() {}

    /// The keys, in insertion order.
    public var keys: [String] { store.keys }

    /// The number of keys.
    public var count: Int { store.count }

    /// Whether the object has no keys.
    public var isEmpty: Bool { store.isEmpty }

    /// The key–value pairs in insertion order.
    public var pairs: [(key: String, value: TemplateValue)] { store.entries }

    /// Reads or writes the value under `key`; writing `nil` removes the key. A new key is
    /// appended at the end.
    public subscript(key: String) -> TemplateValue? {
        get { store[key] }
        set { store[key] = newValue }
    }

    public static func == (lhs: TemplateObject, rhs: TemplateObject) -> Bool {
        lhs.store.entries.count == rhs.store.entries.count
            && zip(lhs.store.entries, rhs.store.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

extension TemplateValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .none }
}

extension TemplateValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension TemplateValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension TemplateValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension TemplateValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension TemplateValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: TemplateValue...) { self = .array(elements) }
}

extension TemplateValue: ExpressibleByDictionaryLiteral {
    /// Keys keep the order in which the literal lists them.
    public init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self = .object(TemplateObject(elements))
    }
}

extension TemplateObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self.init(elements)
    }
}
