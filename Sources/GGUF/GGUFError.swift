/// Why a GGUF file could not be opened, and where the problem is.
///
/// `kind` is for code to switch over; `description` reads as a sentence naming the file, the
/// byte offset and the metadata key or tensor involved, e.g.
/// `model.gguf: at byte 1234, key 'tokenizer.ggml.tokens': array of 2^60 strings cannot fit in the 512 bytes left`.
public struct GGUFError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The category of failure.
    public enum Kind: Sendable, Equatable {
        /// The file could not be opened, inspected or mapped (see `message` for the system error).
        case io
        /// The file does not start with `GGUF`.
        case badMagic
        /// A GGUF version other than 2 or 3 (or a big-endian file).
        case unsupportedVersion
        /// The file ends inside a field.
        case truncated
        /// A count or length cannot possibly fit in the bytes that remain.
        case countTooLarge
        /// A metadata value type tag GGUF does not define.
        case invalidValueType
        /// Arrays nested deeper than the reader allows.
        case nestingTooDeep
        /// The same metadata key appears twice.
        case duplicateKey
        /// A known key holds a value of the wrong type or range (e.g. `general.alignment`).
        case invalidMetadata
        /// The same tensor name appears twice.
        case duplicateTensor
        /// A tensor has zero or more than four dimensions, or a dimension that is not positive.
        case invalidShape
        /// A tensor type Sotto cannot read (e.g. the IQ types).
        case unsupportedTensorType
        /// A tensor's row length is not a whole number of its type's blocks.
        case partialBlock
        /// A tensor's data offset is not a multiple of the file's alignment.
        case misalignedTensor
        /// A tensor's data range reaches past the end of the file.
        case tensorOutOfBounds
    }

    public let kind: Kind
    /// The file, when known.
    public let path: String?
    /// The byte offset in the file where the problem was found, when it applies.
    public let offset: Int?
    /// The metadata key being read, when the problem is inside one.
    public let key: String?
    /// The tensor being read, when the problem is inside one.
    public let tensor: String?
    /// What is wrong, in words.
    public let message: String

    public init(
        _ kind: Kind, _ message: String, offset: Int? = nil, key: String? = nil, tensor: String? = nil,
        path: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.offset = offset
        self.key = key
        self.tensor = tensor
        self.path = path
    }

    /// The same error, attributed to `path`.
    func at(path: String) -> GGUFError {
        GGUFError(kind, message, offset: offset, key: key, tensor: tensor, path: path)
    }

    /// Names from a damaged file can be long garbage; keep messages readable.
    static func abbreviated(_ text: String, limit: Int = 80) -> String {
        text.utf8.count <= limit ? text : String(text.prefix(limit)) + "…"
    }

    public var description: String {
        var place: [String] = []
        if let offset { place.append("at byte \(offset)") }
        if let key { place.append("key '\(Self.abbreviated(key))'") }
        if let tensor { place.append("tensor '\(Self.abbreviated(tensor))'") }
        var text = place.isEmpty ? message : place.joined(separator: ", ") + ": " + message
        if let path { text = path + ": " + text }
        return "GGUF error: " + text
    }
}
