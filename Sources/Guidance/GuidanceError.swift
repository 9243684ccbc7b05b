/// Why a schema could not be compiled, or why a token was refused.
///
/// `kind` is for code to switch over; `description` reads as a sentence naming where the problem
/// is, e.g. `Guidance error: at $.code, pattern "(?=x)" offset 0: lookaround is not supported`.
public struct GuidanceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The category of failure.
    public enum Kind: Sendable, Equatable {
        /// A regular expression uses a feature the compiler does not implement (lookaround,
        /// backreferences, word boundaries, flags, …).
        case unsupportedPattern
        /// A regular expression is malformed.
        case invalidPattern
        /// A schema constraint is inconsistent (e.g. `min > max`, a negative count).
        case invalidSchema
        /// No JSON text satisfies the schema (e.g. a pattern that matches nothing within
        /// `maxLength`).
        case emptyLanguage
        /// The schema expands to more automaton states than the compiler allows.
        case tooLarge
        /// A token (or byte) was fed to a matcher that does not allow it at that point.
        case rejected
        /// A vocabulary and a matcher or mask disagree (e.g. a token id out of range).
        case vocabularyMismatch
    }

    public let kind: Kind
    /// Where in the schema, as a path like `$.replies[*]`, when it applies.
    public let path: String?
    /// The offset in a pattern or in the generated output, when it applies.
    public let offset: Int?
    /// What is wrong, in words.
    public let message: String

    public init(_ kind: Kind, _ message: String, path: String? = nil, offset: Int? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
        self.offset = offset
    }

    /// The same error, attributed to the schema location `path`.
    func at(path: String) -> GuidanceError {
        GuidanceError(kind, message, path: self.path ?? path, offset: offset)
    }

    public var description: String {
        var place: [String] = []
        if let path { place.append("at \(path)") }
        if let offset { place.append("offset \(offset)") }
        let text = place.isEmpty ? message : place.joined(separator: ", ") + ": " + message
        return "Guidance error: " + text
    }
}
