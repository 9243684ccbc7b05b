/// An error from compiling or rendering a chat template, with the place in the template source
/// it refers to (1-based line and column, columns counted in Unicode scalars).
public struct TemplateError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, broadly.
    public enum Kind: Sendable, Equatable {
        /// The template is not valid Jinja (unbalanced tags, bad expression, bad string literal).
        case syntax
        /// Valid Jinja that this renderer does not implement (a tag, filter, test or method).
        case unsupported
        /// An error while rendering: an undefined value used where a value is required, a type
        /// mismatch (`'a' + 1`), a value that cannot be written as JSON.
        case runtime
        /// The template itself refused its input through `raise_exception(message)`.
        case raised
    }

    /// What went wrong, broadly.
    public var kind: Kind
    /// 1-based line in the template source.
    public var line: Int
    /// 1-based column in the template source.
    public var column: Int
    /// The message, without the position.
    public var message: String

    /// Creates an error; the renderer makes these, tests and callers may too.
    public init(_ kind: Kind, _ message: String, line: Int, column: Int) {
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
    }

    /// `"<message> at line L, column C"`.
    public var description: String { "\(message) at line \(line), column \(column)" }
}

/// A place in the template source.
struct SourceLocation: Sendable, Equatable {
    var line: Int
    var column: Int

    static let start = SourceLocation(line: 1, column: 1)
}

extension TemplateError {
    init(_ kind: Kind, _ message: String, at location: SourceLocation) {
        self.init(kind, message, line: location.line, column: location.column)
    }
}
