import Foundation
import FoundationModels
import OpenAIWire

/// Turns the chunks of a streamed chat completion into the seam's events: content into text,
/// `tool_calls` deltas (keyed by `index`, the id and name in the first) into tool-call argument
/// fragments, the usage chunk into usage. A state machine without I/O.
struct ChunkDecoder {
    typealias Channel = LanguageModelExecutorGenerationChannel

    /// The calls seen so far, by their `index`: id and name.
    private var calls: [Int: (id: String, name: String)] = [:]
    private var usage: (prompt: Int, completion: Int)?
    private var sawTokens = 0

    /// One `data:` payload, read in one pass: the chunk, unless the endpoint sent an error
    /// instead. What cannot be read throws the error to report.
    private struct Payload: Decodable {
        var chunk: OpenAIChunk

        private enum Key: String, CodingKey { case error }

        init(from decoder: any Decoder) throws {
            guard let container = try? decoder.container(keyedBy: Key.self) else {
                throw OpenAIEndpointError(status: 200, message: "a stream chunk is not a JSON object")
            }
            if let error = try? container.decode(OpenAIErrorBody.Inner.self, forKey: .error) {
                throw OpenAIEndpointError(
                    status: 200, message: error.message ?? "error in the stream", code: error.code)
            }
            do {
                chunk = try OpenAIChunk(from: decoder)
            } catch {
                throw OpenAIEndpointError(status: 200, message: "a stream chunk is not a chat completion chunk")
            }
        }
    }

    /// The events of one `data:` payload.
    mutating func events(fromChunk data: Data) throws -> [Channel.Event] {
        let chunk: OpenAIChunk
        do {
            chunk = try JSONDecoder().decode(Payload.self, from: data).chunk
        } catch is DecodingError {
            // Not JSON at all (what is JSON but not an object is reported by `Payload`).
            throw OpenAIEndpointError(status: 200, message: "a stream chunk is not a JSON object")
        }
        var events: [Channel.Event] = []
        if let usage = chunk.usage { self.usage = (usage.promptTokens, usage.completionTokens) }
        for choice in chunk.choices {
            if let content = choice.delta.content, !content.isEmpty {
                sawTokens += 1
                events.append(.response(action: .appendText(content, tokenCount: 1)))
            }
            for call in choice.delta.toolCalls ?? [] {
                if calls[call.index] == nil {
                    guard let name = call.function?.name else {
                        throw OpenAIEndpointError(status: 200, message: "a tool call's first delta has no name")
                    }
                    calls[call.index] = (call.id ?? "call_\(call.index)", name)
                }
                let known = calls[call.index]!
                sawTokens += 1
                events.append(
                    .toolCalls(
                        action: .toolCall(
                            id: known.id, name: known.name,
                            action: .appendArguments(call.function?.arguments ?? "", tokenCount: 1))))
            }
        }
        return events
    }

    /// The usage, once the stream has ended (the endpoint's counts, else the chunks seen).
    func finish() -> [Channel.Event] {
        let counts = usage ?? (0, sawTokens)
        return [
            .response(
                action: .updateUsage(
                    input: .init(totalTokenCount: counts.prompt, cachedTokenCount: 0),
                    output: .init(totalTokenCount: counts.completion, reasoningTokenCount: 0)))
        ]
    }
}
