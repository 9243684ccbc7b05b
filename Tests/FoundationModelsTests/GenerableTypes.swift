import Foundation
import FoundationModels

// Types written exactly as Apple's documentation writes them, used across the tests.

@Generable(description: "Suggested replies to the last message of a conversation")
struct ReplySuggestions {
    @Guide(description: "Three short replies the user could send", .count(3))
    var replies: [String]
}

@Generable
struct SearchSuggestions {
    @Guide(description: "A list of suggested search terms", .count(4))
    var searchTerms: [String]
}

@Generable
enum Sentiment {
    case positive, neutral, negative
}

@Generable(description: "A person in the story")
struct Character {
    @Guide(description: "The character's full name")
    var name: String
    @Guide(description: "Age in years", .range(1...120))
    var age: Int
    var mood: Sentiment
    var nickname: String?
}

@Generable
struct Story {
    var title: String
    @Guide(description: "The main characters", .minimumCount(1), .maximumCount(3))
    var characters: [Character]
    @Guide(description: "A hashtag for the story", /#[a-z]+/)
    var hashtag: String
    @Guide(.anyOf(["fantasy", "mystery", "romance"]))
    var genre: String
    @Guide(description: "Rating out of five", .minimum(0), .maximum(5))
    var rating: Double
    var id: GenerationID
    var wordCount: Int { title.count }
}

@Generable(description: "Something the assistant can do next")
enum NextAction {
    case reply(text: String)
    case wait(minutes: Int)
    case remind(String, at: Int)
    case nothing
}

@Generable
struct TreeNode {
    var label: String
    var children: [TreeNode]
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
