/// Why a Whisper model folder could not be read: which file, where, and what was wrong.
public struct WhisperModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The file could not be opened, inspected or mapped.
        case io
        /// A length or count points past the end of the file.
        case truncated
        /// The bytes are not what the format says they must be.
        case malformed
        /// A format version or data type this reader does not know.
        case unsupported
        /// A variable the network needs is missing, or has the wrong shape or type.
        case missingVariable
        /// `config.json` or the vocabulary is not what a Whisper model needs.
        case badCompanion
    }

    public let kind: Kind
    /// What was wrong, in words.
    public let message: String
    /// The byte offset in the file where reading failed, when known.
    public let offset: Int?
    /// The file.
    public let path: String

    package init(_ kind: Kind, _ message: String, offset: Int? = nil, path: String) {
        self.kind = kind
        self.message = message
        self.offset = offset
        self.path = path
    }

    public var description: String {
        "\(path): \(message)" + (offset.map { " (at byte \($0))" } ?? "")
    }
}
