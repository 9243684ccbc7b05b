/// The shape of a JSON value a model must produce.
///
/// Schemas are trees (no recursion). A `Grammar` compiled from one accepts exactly the JSON texts
/// that satisfy every constraint, written in one fixed layout:
///
/// ```
/// {"name": "Ada", "tags": ["a", "b"], "age": 36}
/// ```
///
/// That is: `": "` after a key, `", "` between members and elements, no other whitespace.
/// Properties appear in declaration order; an optional property is either present or left out.
public indirect enum Schema: Sendable, Hashable {
    /// An object whose properties appear in this order.
    case object([Property])
    /// An array of `element` values with an optional number of elements range.
    case array(Schema, minCount: Int? = nil, maxCount: Int? = nil)
    /// A string, optionally restricted by a regular expression (which must match the whole
    /// string), a list of allowed values, or a maximum length in Unicode scalars.
    case string(pattern: String? = nil, choices: [String]? = nil, maxLength: Int? = nil)
    /// A JSON integer in `min...max` (bounds default to `Int.min` and `Int.max`).
    case integer(min: Int? = nil, max: Int? = nil)
    /// A JSON number written without an exponent, in `min...max`.
    ///
    /// At most ``Schema/maximumFractionDigits`` digits follow the decimal point (more when a bound
    /// needs them), and without bounds the integer part has at most
    /// ``Schema/maximumUnboundedIntegerDigits`` digits.
    case number(min: Double? = nil, max: Double? = nil)
    /// `true` or `false`.
    case boolean
    /// Exactly this string value (written as a JSON string).
    case constant(String)
    /// Any one of these schemas.
    case anyOf([Schema])
    /// `null`.
    case null
    /// Any JSON object whose containers nest at most `maximumDepth` deep, the object itself
    /// counting one (`{"a": [1]}` is 2 deep): free keys, and values of every kind (strings,
    /// numbers as ``number(min:max:)`` writes them, `true`, `false`, `null`, objects, arrays).
    /// What OpenAI's `response_format: {"type": "json_object"}` asks for: an unbounded depth
    /// would need a stack, a bounded one is a regular language.
    case anyObject(maximumDepth: Int)

    /// One property of an object schema.
    public struct Property: Sendable, Hashable {
        public var name: String
        public var schema: Schema
        /// Whether the property may be left out.
        public var isOptional: Bool

        public init(_ name: String, _ schema: Schema, isOptional: Bool = false) {
            self.name = name
            self.schema = schema
            self.isOptional = isOptional
        }
    }

    /// The nesting depth of ``anyObject(maximumDepth:)`` for a JSON object of any shape. Each
    /// level is a copy of the automaton of the level below twice over (in an object and in an
    /// array), so its size grows as 2^depth: 6 stays small (a few thousand states).
    public static let anyObjectDepth = 6

    /// Digits allowed after the decimal point of a `number` (unless a bound has more).
    public static let maximumFractionDigits = 15
    /// Digits allowed before the decimal point of a `number` whose bounds are not given.
    public static let maximumUnboundedIntegerDigits = 15
}
