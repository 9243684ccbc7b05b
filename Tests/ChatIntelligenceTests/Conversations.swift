import ChatIntelligence
import Foundation

/// A conversation of the quality set (`Fixtures/conversations.json`): who the user is, and the
/// messages so far, the last one from someone else.
struct Conversation: Decodable, Sendable {
    struct Person: Decodable, Sendable {
        var id: String
        var name: String
    }

    struct Line: Decodable, Sendable {
        var from: String
        var text: String
    }

    var name: String
    var kind: String
    var user: String
    var tone: String?
    var participants: [Person]
    var messages: [Line]

    var people: [String: Participant] {
        Dictionary(uniqueKeysWithValues: participants.map { ($0.id, Participant(id: $0.id, name: $0.name)) })
    }

    var userParticipant: Participant { people[user] ?? Participant(id: user, name: user) }

    var chatMessages: [ChatMessage] {
        let people = people
        return messages.map {
            ChatMessage(author: people[$0.from] ?? Participant(id: $0.from, name: $0.from), text: $0.text)
        }
    }

    var replyTone: ReplyTone? { tone.flatMap(ReplyTone.init(rawValue:)) }

    static func loadAll() throws -> [Conversation] {
        guard let url = Bundle.module.url(forResource: "conversations", withExtension: "json", subdirectory: "Fixtures")
        else {
            throw CocoaError(
                .fileNoSuchFile,
                userInfo: [NSLocalizedDescriptionKey: "Fixtures/conversations.json is not in the bundle"])
        }
        return try JSONDecoder().decode([Conversation].self, from: Data(contentsOf: url))
    }
}

/// Shorthand for test conversations.
enum People {
    static let alice = Participant(id: "alice", name: "Alice")
    static let bob = Participant(id: "bob", name: "Bob")
    static let carol = Participant(id: "carol", name: "Carol")
}

func message(_ author: Participant, _ text: String) -> ChatMessage {
    ChatMessage(author: author, text: text)
}
