/// Why audio could not be read: said so a person can fix the file.
public struct AudioDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    package init(_ description: String) { self.description = description }
}
