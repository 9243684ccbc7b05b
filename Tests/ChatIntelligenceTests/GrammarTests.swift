import Foundation
import FoundationModels
import Guidance
import TestSupport
import Testing

@testable import ChatIntelligence

/// The reply patterns compiled by the engine's grammar compiler, as constrained decoding uses them.
@Suite struct GrammarTests {
    func grammar(for schema: GenerationSchema) throws -> Grammar {
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(schema.jsonSchemaString.utf8)) as? [String: Any])
        let replies = try #require((json["properties"] as? [String: Any])?["replies"] as? [String: Any])
        let pattern = try #require((replies["items"] as? [String: Any])?["pattern"] as? String)
        let element = Schema.string(pattern: pattern)
        return try Grammar(schema: .object([.init("replies", .array(element, minCount: 3, maxCount: 3))]))
    }

    func output(_ replies: [String]) -> String {
        "{\"replies\": [" + replies.map { "\"\($0)\"" }.joined(separator: ", ") + "]}"
    }

    @Test(.onTestThreads) func theEngineEnforcesTheReplyBound() throws {
        let grammar = try grammar(for: ReplySuggestions.generationSchema)
        #expect(grammar.accepts(output(["Sounds good!", "Sorry, I can't make it.", "What time?"])))
        #expect(grammar.accepts(output(["¡Claro que sí!", "Bien sûr, j'arrive !", "Ja, gerne."])))
        #expect(grammar.accepts(output(["one two three four five six seven eight", "a", "b"])))
        #expect(!grammar.accepts(output(["one two three four five six seven eight nine", "a", "b"])))
        #expect(!grammar.accepts(output(["Sure! See you then.", "a", "b"])))
        #expect(!grammar.accepts(output(["Send you 反馈", "a", "b"])))
        #expect(!grammar.accepts(output(["Sounds good!", "Nope."])))
    }

    @Test(.onTestThreads) func theEngineAcceptsCJKReplies() throws {
        let grammar = try grammar(for: CJKReplySuggestions.generationSchema)
        #expect(grammar.accepts(output(["好的，周六见！", "不行。", "几点？"])))
        #expect(!grammar.accepts(output(["one two three four five six seven eight nine", "a", "b"])))
    }
}
