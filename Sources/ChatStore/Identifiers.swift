import Foundation

/// A user's id: 1–64 characters from `A–Z a–z 0–9 _ - . @`.
public struct UserID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    /// Accepts any string; use `validated(_:)` for input from outside.
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Checks the id's form; throws `ChatStoreError.invalidArgument` naming `field`.
    public static func validated(_ text: String, field: String = "user_id") throws -> UserID {
        try Identifier.check(text, field: field, maxLength: 64, extra: "_-.@")
        return UserID(rawValue: text)
    }

    public var description: String { rawValue }
    public static func < (lhs: UserID, rhs: UserID) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// A channel address `type:id`, e.g. `messaging:weekend-hike`.
///
/// `type` is 1–32 characters from `a–z 0–9 _ -`; `id` is 1–64 characters from
/// `A–Z a–z 0–9 _ - . @ !`.
public struct ChannelID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let type: String
    public let id: String

    /// Accepts any parts; use `parse(_:)` for input from outside.
    public init(type: String, id: String) {
        self.type = type
        self.id = id
    }

    /// Parses and checks `type:id`.
    public static func parse(_ text: String, field: String = "cid") throws -> ChannelID {
        guard let colon = text.firstIndex(of: ":") else {
            throw ChatStoreError.invalidArgument(field: field, reason: "expected 'type:id', got '\(text.prefix(80))'")
        }
        let type = String(text[..<colon])
        let id = String(text[text.index(after: colon)...])
        try Identifier.check(type, field: field + " type", maxLength: 32, extra: "_-", lowercaseOnly: true)
        try Identifier.check(id, field: field + " id", maxLength: 64, extra: "_-.@!")
        return ChannelID(type: type, id: id)
    }

    /// `type:id`.
    public var description: String { "\(type):\(id)" }
    public var cid: String { description }

    public static func < (lhs: ChannelID, rhs: ChannelID) -> Bool { lhs.cid < rhs.cid }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try ChannelID.parse(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
        }
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(cid)
    }
}

/// A message id: client-chosen (1–64 characters from `A–Z a–z 0–9 _ - . :`) or a server UUID.
public struct MessageID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public static func validated(_ text: String, field: String = "id") throws -> MessageID {
        try Identifier.check(text, field: field, maxLength: 64, extra: "_-.:")
        return MessageID(rawValue: text)
    }

    /// A new random id (a lowercase UUID).
    public static func random() -> MessageID { MessageID(rawValue: UUID().uuidString.lowercased()) }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

enum Identifier {
    static func check(_ text: String, field: String, maxLength: Int, extra: String, lowercaseOnly: Bool = false) throws
    {
        guard !text.isEmpty else { throw ChatStoreError.invalidArgument(field: field, reason: "must not be empty") }
        guard text.utf8.count <= maxLength else {
            throw ChatStoreError.invalidArgument(field: field, reason: "longer than \(maxLength) characters")
        }
        let extraBytes = Set(extra.utf8)
        for byte in text.utf8 {
            let lower = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
            let upper = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
            let digit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard lower || digit || (upper && !lowercaseOnly) || extraBytes.contains(byte) else {
                let allowed =
                    (lowercaseOnly ? "a-z" : "A-Z a-z") + " 0-9 " + extra.map(String.init).joined(separator: " ")
                throw ChatStoreError.invalidArgument(
                    field: field, reason: "'\(text.prefix(80))' has a character outside [\(allowed)]")
            }
        }
    }
}
