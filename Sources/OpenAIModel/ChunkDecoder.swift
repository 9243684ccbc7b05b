import Foundation
import FoundationModels

/// Turns the chunks of a streamed chat completion into the seam's events: content into text,
/// `tool_calls` deltas (keyed by `index`, the id and name in the first) into tool-call argument
/// fragments, the usage chunk into usage. A state machine without I/O.
struct ChunkDecoder {
    typealias Channel = LanguageModelExecutorGenerationChannel

    /// The calls seen so far, by their `index`: id and name.
    private var calls: [Int: (id: String, name: String)] = [:]
    private var usage: (prompt: Int, completion: Int)?
    private var sawTokens = 0

    /// The events of one `data:` payload.
    mutating func events(fromChunk data: Data) throws -> [Channel.Event] {
        guard let chunk = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw OpenAIEndpointError(status: 200, message: "a stream chunk is not a JSON object")
        }
        if let error = chunk["error"] as? [String: Any] {
            throw OpenAIEndpointError(
                status: 200, message: error["message"] as? String ?? "error in the stream",
                code: error["code"] as? String)
        }
        var events: [Channel.Event] = []
        if let usage = chunk["usage"] as? [String: Any],
            let prompt = usage["prompt_tokens"] as? Int, let completion = usage["completion_tokens"] as? Int
        {
            self.usage = (prompt, completion)
        }
        for choice in chunk["choices"] as? [[String: Any]] ?? [] {
            guard let delta = choice["delta"] as? [String: Any] else { continue }
            if let content = delta["content"] as? String, !content.isEmpty {
                sawTokens += 1
                events.append(.response(action: .appendText(content, tokenCount: 1)))
            }
            for call in delta["tool_calls"] as? [[String: Any]] ?? [] {
                let index = call["index"] as? Int ?? 0
                let function = call["function"] as? [String: Any]
                if calls[index] == nil {
                    guard let name = function?["name"] as? String else {
                        throw OpenAIEndpointError(status: 200, message: "a tool call's first delta has no name")
                    }
                    calls[index] = (call["id"] as? String ?? "call_\(index)", name)
                }
                let known = calls[index]!
                let arguments = function?["arguments"] as? String ?? ""
                sawTokens += 1
                events.append(
                    .toolCalls(
                        action: .toolCall(
                            id: known.id, name: known.name, action: .appendArguments(arguments, tokenCount: 1))))
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
