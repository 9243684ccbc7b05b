import FoundationModels
import Guidance
import Tokenizers

/// How a model writes tool calls, for the models whose chat template takes tools: Qwen 2.5 (and
/// Hermes-style templates) wrap each call in `<tool_call>` … `</tool_call>` tokens, around a line
/// of JSON `{"name": "…", "arguments": {…}}`:
///
/// ```
/// <tool_call>
/// {"name": "getWeather", "arguments": {"city": "Paris"}}
/// </tool_call>
/// ```
package struct ToolCallFormat: Sendable {
    /// The token that opens a call.
    package let openToken: Int
    /// The token that closes a call.
    package let closeToken: Int
    /// Text between the opening token and the JSON.
    package let leadingText = "\n"
    /// Tokens between the JSON and the closing token, forced.
    package let trailingTokens: [Int]
    /// The token between two calls.
    package let separatorToken: Int

    /// How much of a bare call (the call's JSON written as the answer, without tags) commits
    /// an answer to being a call: `{"name": "`.
    package static let bareCallCommitLength = #"{"name": ""#.utf8.count

    /// The most calls in one turn; after that the turn must end.
    package static let maximumCallsPerTurn = 8

    /// The format of a model whose tokenizer has the tags and whose template renders tools; nil
    /// otherwise (the model then answers in text only).
    package init?(tokenizer: Tokenizer, templateSource: String?) {
        guard let templateSource, templateSource.contains("tool_call"), templateSource.contains("tools"),
            let open = tokenizer.tokenID(for: "<tool_call>"), let close = tokenizer.tokenID(for: "</tool_call>")
        else { return nil }
        let newline = tokenizer.encode("\n", parseSpecial: false)
        guard newline.count == 1 else { return nil }
        openToken = open
        closeToken = close
        trailingTokens = newline
        separatorToken = newline[0]
    }

    /// The schema of one call among `tools`: the tool's name, then arguments following its
    /// parameters.
    package static func callSchema(for tools: [Transcript.ToolDefinition]) throws -> Schema {
        precondition(!tools.isEmpty, "a call schema needs at least one tool")
        let choices = try tools.map { tool -> Schema in
            let arguments: Schema
            do {
                arguments = try tool.parameters.guidanceSchema()
            } catch let error as LanguageModelSession.GenerationError {
                throw error.prefixed(by: "tool '\(tool.name)' arguments: ")
            }
            return .object([Schema.Property("name", .constant(tool.name)), Schema.Property("arguments", arguments)])
        }
        return choices.count == 1 ? choices[0] : .anyOf(choices)
    }

    /// Reads the call JSON generated between the tags.
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/decodingFailure(_:)`` when it is not a
    ///   complete call.
    package static func parseCall(_ text: String) throws -> Transcript.ToolCall {
        let content = try GeneratedContent(json: text.trimmingWhitespace)
        guard content.isComplete, case .structure(let properties, _) = content.kind,
            case .string(let name)? = properties["name"]?.kind
        else {
            throw LanguageModelSession.GenerationError.decodingFailure(
                .init(debugDescription: "The model wrote a tool call that is not a complete call: \(text)"))
        }
        let arguments = properties["arguments"] ?? GeneratedContent(properties: [:])
        return Transcript.ToolCall(id: "", toolName: name, arguments: arguments)
    }
}

extension ToolCallFormat {
    /// `bytes` without leading spaces, tabs and newlines.
    static func droppingLeadingWhitespace(_ bytes: [UInt8]) -> [UInt8] {
        Array(bytes.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 })
    }
}

extension String {
    /// The string without leading and trailing whitespace and newlines.
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
