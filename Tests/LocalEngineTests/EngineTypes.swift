import Foundation
import FoundationModels

// The @Generable types the engine's tests generate, written as Apple's documentation writes them
// (the same as FoundationModelsTests' GenerableTypes.swift: test targets cannot share sources).

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

@Generable
struct TreeNode {
    var label: String
    var children: [TreeNode]
}
