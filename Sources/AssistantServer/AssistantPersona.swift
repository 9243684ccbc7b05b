import FoundationModels
import ServerKit

/// A preset for the assistant's instructions, or `custom` for the user's own.
package struct AssistantPersona: Encodable, Sendable, Equatable {
    package var id: String
    package var title: String
    package var instructions: String

    package static let presets: [AssistantPersona] = [
        AssistantPersona(
            id: "general", title: "General assistant",
            instructions:
                "You are a helpful, friendly assistant running privately on the user's own computer. Answer clearly and correctly; use Markdown for lists, tables and code."
        ),
        AssistantPersona(
            id: "writing_coach", title: "Writing coach",
            instructions:
                "You are a writing coach. Help the user write clearly: point out what is unclear, suggest better wording, and explain why, briefly."
        ),
        AssistantPersona(
            id: "swift_reviewer", title: "Swift code reviewer",
            instructions:
                "You are an experienced Swift code reviewer. Review the code the user shows: correctness first, then clarity and Swift API Design Guidelines naming. Show fixes as Swift code blocks."
        ),
        AssistantPersona(
            id: "translator", title: "Translator",
            instructions:
                "You are a translator. Translate what the user writes, keeping its meaning and tone; answer with the translation only."
        ),
        AssistantPersona(
            id: "concise", title: "Concise",
            instructions: "You are a concise assistant. Answer in as few words as the question allows."
        ),
    ]

    package static let customID = "custom"

    package static func preset(_ id: String) -> AssistantPersona? { presets.first { $0.id == id } }

    package static var ids: [String] { presets.map(\.id) + [customID] }
}

/// A language the model can be told to answer in.
package struct AssistantLanguage: Encodable, Sendable, Equatable {
    package var code: String
    package var name: String

    package static let all: [AssistantLanguage] = [
        ("en", "English"), ("fr", "French"), ("de", "German"), ("es", "Spanish"), ("it", "Italian"),
        ("pt", "Portuguese"), ("nl", "Dutch"), ("ja", "Japanese"), ("zh", "Chinese"), ("ko", "Korean"),
    ].map { AssistantLanguage(code: $0.0, name: $0.1) }

    package static func named(_ code: String) -> AssistantLanguage? { all.first { $0.code == code.lowercased() } }
}

/// The conversation's title, written by the model after the first exchange.
@Generable(description: "A short title for a chat conversation")
package struct AssistantTitle: Sendable, Equatable {
    @Guide(description: "Two to five words naming the topic, no quotes", .pattern(/^[A-Za-z0-9][^\n\r"\\]{1,40}$/))
    package var title: String
}

/// Replies the user might send next, offered as chips after an answer.
@Generable(description: "Short replies a user might send next in a chat with an assistant")
package struct AssistantReplies: Sendable, Equatable {
    @Guide(
        description: "Three different short replies or follow-up questions the user might send next",
        .count(3), .element(.pattern(/^[A-Za-z0-9][^\n\r"\\]{1,60}$/)))
    package var replies: [String]
}
