import Foundation

/// Structured content produced by a model: null, a Boolean, a number, a string, an array, or a
/// structure of named properties in a fixed order.
///
/// ```swift
/// let content = try GeneratedContent(json: #"{"name": "Ada", "age": 36}"#)
/// let name: String = try content.value(forProperty: "name")
/// ```
///
/// Content parsed from the JSON of a response that is still streaming is incomplete: strings,
/// arrays and structures hold what has arrived so far, and ``isComplete`` is false.
public struct GeneratedContent: Sendable, CustomDebugStringConvertible {
    /// The kinds of value generated content can hold.
    public enum Kind: Equatable, Sendable {
        /// A null value.
        case null
        /// A Boolean value.
        case bool(Bool)
        /// A number.
        case number(Double)
        /// A string.
        case string(String)
        /// An ordered list of values.
        case array([GeneratedContent])
        /// Named values; `orderedKeys` gives their order (the schema's declaration order).
        case structure(properties: [String: GeneratedContent], orderedKeys: [String])
    }

    /// The identity of this content; set, and stable across a stream, when a session produced it.
    public var id: GenerationID?

    /// The value this content holds.
    public private(set) var kind: Kind

    /// Whether all of this content has been generated (false for a snapshot of a response that
    /// is still streaming).
    public var isComplete: Bool { complete }

    private var complete: Bool

    /// Creates content of the given kind.
    public init(kind: Kind, id: GenerationID? = nil) {
        self.init(kind: kind, id: id, isComplete: kind.childrenAreComplete)
    }

    package init(kind: Kind, id: GenerationID? = nil, isComplete: Bool) {
        self.kind = kind
        self.id = id
        self.complete = isComplete
    }

    /// Creates content from another value.
    public init(_ value: some ConvertibleToGeneratedContent) {
        self = value.generatedContent
    }

    /// Creates content from another value, with a custom generation ID.
    public init(_ value: some ConvertibleToGeneratedContent, id: GenerationID) {
        self = value.generatedContent
        self.id = id
    }

    /// Creates a structure with the properties you give, in the order you give them. When a key
    /// appears more than once, the last value wins and keeps the first position.
    public init(properties: KeyValuePairs<String, any ConvertibleToGeneratedContent>, id: GenerationID? = nil) {
        self.init(properties: properties.map { ($0.key, $0.value) }, id: id, uniquingKeysWith: { _, second in second })
    }

    /// Creates a structure from key-value pairs, using `combine` to decide the value of a key
    /// that appears more than once.
    public init<S: Sequence>(
        properties: S, id: GenerationID? = nil,
        uniquingKeysWith combine: (GeneratedContent, GeneratedContent) throws -> some ConvertibleToGeneratedContent
    ) rethrows where S.Element == (String, any ConvertibleToGeneratedContent) {
        var values: [String: GeneratedContent] = [:]
        var orderedKeys: [String] = []
        for (key, value) in properties {
            let content = value.generatedContent
            if let existing = values[key] {
                values[key] = try combine(existing, content).generatedContent
            } else {
                values[key] = content
                orderedKeys.append(key)
            }
        }
        self.init(kind: .structure(properties: values, orderedKeys: orderedKeys), id: id)
    }

    /// Creates an array of the elements you give.
    public init<S: Sequence>(elements: S, id: GenerationID? = nil)
    where S.Element == any ConvertibleToGeneratedContent {
        self.init(kind: .array(elements.map(\.generatedContent)), id: id)
    }

    /// Null content (27 SDK).
    public static let null = GeneratedContent(kind: .null)

    public var debugDescription: String {
        "GeneratedContent(\(jsonString)\(complete ? "" : ", incomplete"))"
    }
}

extension GeneratedContent: Equatable {
    /// Contents are equal when they hold equal values; ``id`` and completeness are not compared.
    public static func == (lhs: GeneratedContent, rhs: GeneratedContent) -> Bool {
        lhs.kind == rhs.kind
    }
}

extension GeneratedContent.Kind {
    fileprivate var childrenAreComplete: Bool {
        switch self {
        case .null, .bool, .number, .string: true
        case .array(let elements): elements.allSatisfy(\.isComplete)
        case .structure(let properties, _): properties.values.allSatisfy(\.isComplete)
        }
    }

    /// A short name for error messages.
    package var name: String {
        switch self {
        case .null: "null"
        case .bool: "a Boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .structure: "a structure"
        }
    }
}

// MARK: - Reading values

extension GeneratedContent {
    /// Reads this content as a value of `type`.
    public func value<Value: ConvertibleFromGeneratedContent>(_ type: Value.Type = Value.self) throws -> Value {
        try Value(self)
    }

    /// Reads the property `property` of this structure as a value of `type`.
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/decodingFailure(_:)`` if this is not a
    ///   structure, the property is missing, or its value does not convert.
    public func value<Value: ConvertibleFromGeneratedContent>(
        _ type: Value.Type = Value.self, forProperty property: String
    ) throws -> Value {
        let properties = try self.properties()
        guard let content = properties[property] else {
            throw decodingFailure("missing property '\(property)' in \(jsonString)")
        }
        do {
            return try Value(content)
        } catch let error as LanguageModelSession.GenerationError {
            throw error.prefixed(by: "property '\(property)': ")
        }
    }

    /// Reads the optional property `property` of this structure: nil when it is missing or null.
    ///
    /// While content is still streaming, a property whose value has not yet arrived far enough to
    /// convert also reads as nil.
    public func value<Value: ConvertibleFromGeneratedContent>(
        _ type: Value?.Type = Value?.self, forProperty property: String
    ) throws -> Value? {
        let properties = try self.properties()
        guard let content = properties[property], content.kind != .null else { return nil }
        do {
            return try Value(content)
        } catch let error as LanguageModelSession.GenerationError {
            if !content.isComplete { return nil }
            throw error.prefixed(by: "property '\(property)': ")
        }
    }

    /// The properties of this structure.
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/decodingFailure(_:)`` if this content is
    ///   not a structure.
    public func properties() throws -> [String: GeneratedContent] {
        guard case .structure(let properties, _) = kind else {
            throw decodingFailure("expected a structure, found \(kind.name): \(jsonString)")
        }
        return properties
    }

    /// The elements of this array.
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/decodingFailure(_:)`` if this content is
    ///   not an array.
    public func elements() throws -> [GeneratedContent] {
        guard case .array(let elements) = kind else {
            throw decodingFailure("expected an array, found \(kind.name): \(jsonString)")
        }
        return elements
    }

    package func decodingFailure(_ message: String) -> LanguageModelSession.GenerationError {
        .decodingFailure(.init(debugDescription: message))
    }
}
