import Foundation
import FoundationModels

// Types written exactly as Apple's documentation writes them, used across the tests (the ones the
// engine's tests use too are in the GenerableFixtures target).

@Generable(description: "Something the assistant can do next")
enum NextAction {
    case reply(text: String)
    case wait(minutes: Int)
    case remind(String, at: Int)
    case nothing
}

@Generable
public struct PublicThing {
    public var value: Int
    public init(value: Int) { self.value = value }
}

@Generable
struct Tuning {
    @Guide(.count(2))
    var pair: [Int]
    @Guide(.element(.range(1...6)))
    var dice: [Int]
    @Guide(description: "A share", .range(0.0...1.0))
    var share: Double
    @Guide(.minimum(0.5))
    var weight: Float
    @Guide(.maximum(10))
    var price: Decimal
    @Guide(.constant("v1"))
    var version: String
    @Guide(.count(1...2), .element(.anyOf(["a", "b"])))
    var letters: [String]?
}

@Generable
struct Page<Item: Generable> {
    var items: [Item]
    var next: Int?
}

@Generable
private struct FilePrivateNote {
    var text: String
}

enum Outer {
    @Generable
    struct Inner {
        var value: Bool
    }
}

/// Reads a `FilePrivateNote`, which only this file can name.
func filePrivateNoteText(json: String) throws -> String {
    try FilePrivateNote(GeneratedContent(json: json)).text
}
