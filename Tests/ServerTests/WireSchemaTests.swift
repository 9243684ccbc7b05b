import ChatStore
import Foundation
import ServerKit
import TestSupport
import Testing

@testable import Server

/// Schemas read from Swift types: what a type writes is what its schema says.
@Suite(.onTestThreads) struct WireSchemaTests {
    enum Mood: String, Codable, CaseIterable { case calm, busy }

    struct Inner: Encodable {
        var count: Int
        var ratio: Double?
    }

    struct Sample: Encodable {
        var id: UserID
        var name: String
        var mood: Mood
        var note: String?
        var tags: [String]
        var inner: Inner
        var owner: UserID?
        var pairs: [[Int]]
        var flag: Bool
    }

    static let sample = Sample(
        id: "ada", name: "Ada", mood: .calm, note: "hi", tags: ["a"], inner: Inner(count: 1, ratio: 0.5),
        owner: "bob", pairs: [[0, 1]], flag: true)

    func built(_ notes: [String: [String: Any]] = [:], example: Sample = sample) throws -> [String: Any] {
        var schemas = WireSchemas()
        schemas.leaf(UserID.self, "UserID", ["type": "string"])
        schemas.inline(Mood.self)
        schemas.add("Sample", example: example, notes: notes)
        return try #require(try schemas.build()["Sample"] as? [String: Any])
    }

    @Test func fieldsTypesAndWhatIsRequiredComeFromTheType() throws {
        let schema = try built()
        let properties = try #require(schema["properties"] as? [String: [String: Any]])
        #expect(Set(properties.keys) == ["id", "name", "mood", "note", "tags", "inner", "owner", "pairs", "flag"])
        #expect(Set(schema["required"] as? [String] ?? []) == ["id", "name", "mood", "tags", "inner", "pairs", "flag"])
        #expect(properties["id"]?["$ref"] as? String == "#/components/schemas/UserID")
        #expect(properties["owner"]?["$ref"] as? String == "#/components/schemas/UserID")
        #expect(properties["name"]?["type"] as? String == "string")
        #expect(properties["flag"]?["type"] as? String == "boolean")
        #expect(properties["mood"]?["enum"] as? [String] == ["calm", "busy"])
        #expect((properties["tags"]?["items"] as? [String: Any])?["type"] as? String == "string")
        let inner = try #require(properties["inner"])
        #expect(inner["required"] as? [String] == ["count"])
        let innerFields = try #require(inner["properties"] as? [String: [String: Any]])
        #expect(innerFields["count"]?["type"] as? String == "integer")
        #expect(innerFields["ratio"]?["type"] as? String == "number")
        let pairs = try #require(properties["pairs"]?["items"] as? [String: Any])
        #expect((pairs["items"] as? [String: Any])?["type"] as? String == "integer")
    }

    @Test func notesAddWhatTheTypeCannotSay() throws {
        let schema = try built([
            "name": ["description": "Shown to others."], "pairs[]": ["minItems": 2], "owner": ["nullable": true],
        ])
        let properties = try #require(schema["properties"] as? [String: [String: Any]])
        #expect(properties["name"]?["description"] as? String == "Shown to others.")
        #expect((properties["pairs"]?["items"] as? [String: Any])?["minItems"] as? Int == 2)
        // A constrained reference keeps its $ref inside allOf (OpenAPI 3.0 ignores a $ref's siblings).
        #expect(properties["owner"]?["nullable"] as? Bool == true)
        #expect(properties["owner"]?["allOf"] != nil)
    }

    @Test func aNoteForAFieldTheTypeLacksIsAnError() {
        #expect(throws: WireSchemas.Failure.self) { try built(["nickname": ["description": "?"]]) }
    }

    @Test func anExampleThatHidesAShapeIsAnError() {
        var example = Self.sample
        example.tags = []
        #expect(throws: WireSchemas.Failure.self) { try built(example: example) }
    }

    @Test func theAPIsSchemasAreGenerated() throws {
        let schemas = try OpenAPISchemas.all()
        let message = try #require(schemas["Message"] as? [String: Any])
        let properties = try #require(message["properties"] as? [String: Any])
        #expect(
            Set(properties.keys) == [
                "id", "cid", "user_id", "text", "created_at", "parent_id", "edited_at", "deleted_at", "reactions",
                "reply_count", "last_reply_at", "attachments",
            ])
        #expect(Set(message["required"] as? [String] ?? []) == ["id", "cid", "user_id", "text", "created_at"])
    }
}
