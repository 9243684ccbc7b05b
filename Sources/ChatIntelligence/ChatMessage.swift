/// A person in a conversation: a stable id, and the name shown for them.
public struct Participant: Sendable, Hashable {
    /// Identifies the person (a user id); names may repeat, ids do not.
    public var id: String
    /// How the person is named in prompts ("Alice").
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// One message of a conversation, as the model reads it.
public struct ChatMessage: Sendable, Hashable {
    public var author: Participant
    public var text: String

    public init(author: Participant, text: String) {
        self.author = author
        self.text = text
    }
}
