import FoundationModels

// The @Generable types the FoundationModels and LocalEngine tests generate, written as Apple's
// documentation writes them (public here, so that both test targets share one definition).

@Generable(description: "Suggested replies to the last message of a conversation")
public struct ReplySuggestions {
    @Guide(description: "Three short replies the user could send", .count(3))
    public var replies: [String]

    public init(replies: [String]) { self.replies = replies }
}

@Generable
public struct SearchSuggestions {
    @Guide(description: "A list of suggested search terms", .count(4))
    public var searchTerms: [String]

    public init(searchTerms: [String]) { self.searchTerms = searchTerms }
}

@Generable
public enum Sentiment {
    case positive, neutral, negative
}

@Generable(description: "A person in the story")
public struct Character {
    @Guide(description: "The character's full name")
    public var name: String
    @Guide(description: "Age in years", .range(1...120))
    public var age: Int
    public var mood: Sentiment
    public var nickname: String?

    public init(name: String, age: Int, mood: Sentiment, nickname: String? = nil) {
        self.name = name
        self.age = age
        self.mood = mood
        self.nickname = nickname
    }
}

@Generable
public struct Story {
    public var title: String
    @Guide(description: "The main characters", .minimumCount(1), .maximumCount(3))
    public var characters: [Character]
    @Guide(description: "A hashtag for the story", /#[a-z]+/)
    public var hashtag: String
    @Guide(.anyOf(["fantasy", "mystery", "romance"]))
    public var genre: String
    @Guide(description: "Rating out of five", .minimum(0), .maximum(5))
    public var rating: Double
    public var id: GenerationID
    public var wordCount: Int { title.count }

    public init(
        title: String, characters: [Character], hashtag: String, genre: String, rating: Double,
        id: GenerationID = GenerationID()
    ) {
        self.title = title
        self.characters = characters
        self.hashtag = hashtag
        self.genre = genre
        self.rating = rating
        self.id = id
    }
}

@Generable
public struct TreeNode {
    public var label: String
    public var children: [TreeNode]

    public init(label: String, children: [TreeNode]) {
        self.label = label
        self.children = children
    }
}
