import Foundation
import OpenAIWire
import TestSupport
import Testing

/// The one copy of OpenAI's chat-completion shapes: what `OpenAIModel` writes, the server reads,
/// and chunks as other servers write them.
@Suite struct WireTests {
    @Test(.onTestThreads) func aRequestWithToolCallsReadsBackAsWritten() throws {
        var request = ChatCompletionRequest(
            model: "m",
            messages: [
                OpenAIMessage(role: "user", content: "weather?"),
                OpenAIMessage(
                    role: "assistant", content: nil,
                    toolCalls: [
                        ToolCallValue(id: "c1", function: .init(name: "weather", arguments: #"{"city":"Oslo"}"#))
                    ]),
                OpenAIMessage(role: "tool", content: "rain", toolCallID: "c1"),
            ])
        request.toolChoice = .function("weather")
        request.stop = .init(["\n\n"])
        request.responseFormat = .init(
            type: "json_schema",
            jsonSchema: .init(name: "r", schema: .object([("type", .string("object"))]), strict: true))
        let data = try JSONEncoder().encode(request)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""content":null"#))  // OpenAI wants it present for tool calls only
        #expect(text.contains(#""tool_call_id":"c1""#) && text.contains(#""stop":["\n\n"]"#))
        let read = try JSONDecoder().decode(ChatCompletionRequest.self, from: data)
        #expect(read.messages.map(\.role) == ["user", "assistant", "tool"])
        #expect(read.messages[1].content == nil && read.messages[1].toolCalls?.first?.function.name == "weather")
        #expect(read.toolChoice == .function("weather"))
        #expect(read.responseFormat?.jsonSchema?.schema == .object([("type", .string("object"))]))
    }

    @Test(.onTestThreads) func contentPartsAndOneStopStringAreRead() throws {
        let body = #"""
            {"model": "m", "stop": "END",
             "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]}
            """#
        let read = try JSONDecoder().decode(ChatCompletionRequest.self, from: Data(body.utf8))
        #expect(read.messages.first?.content?.text == "a\nb")
        #expect(read.stop?.values == ["END"])
        let image = #"{"model": "m", "messages": [{"role": "user", "content": [{"type": "image_url"}]}]}"#
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ChatCompletionRequest.self, from: Data(image.utf8))
        }
    }

    @Test(.onTestThreads) func chunksAreReadWithoutTheFieldsSomeServersLeaveOut() throws {
        // No id, created, model or index: read as empty values, the delta kept.
        let chunk = #"""
            {"choices": [{"delta": {"tool_calls": [{"function": {"name": "weather", "arguments": "{\"ci"}}]}}],
             "usage": {"prompt_tokens": 7, "completion_tokens": 2}}
            """#
        let read = try JSONDecoder().decode(OpenAIChunk.self, from: Data(chunk.utf8))
        #expect(read.id == "" && read.choices.count == 1)
        #expect(read.choices[0].delta.toolCalls?.first?.index == 0)
        #expect(read.choices[0].delta.toolCalls?.first?.function?.arguments == #"{"ci"#)
        #expect(read.usage == OpenAIUsage(promptTokens: 7, completionTokens: 2))
    }

    @Test(.onTestThreads) func aChunkAsTheServerWritesItReadsBack() throws {
        let chunk = OpenAIChunk(
            id: "x", created: 1, model: "m", choices: [.init(index: 0, delta: .init(content: "hi"), finishReason: nil)],
            usage: nil)
        let data = try JSONEncoder().encode(chunk)
        #expect(String(decoding: data, as: UTF8.self).contains(#""finish_reason":null"#))
        let read = try JSONDecoder().decode(OpenAIChunk.self, from: data)
        #expect(read.object == "chat.completion.chunk" && read.choices.first?.delta.content == "hi")
    }

    @Test(.onTestThreads) func errorBodiesKeepTheirNullsAndReadANumericCodeAsNone() throws {
        let written = try JSONEncoder().encode(
            OpenAIErrorBody(error: .init(message: "no", type: "invalid_request_error", param: nil, code: nil)))
        let text = String(decoding: written, as: UTF8.self)
        #expect(text.contains(#""param":null"#) && text.contains(#""code":null"#))
        let llama = #"{"error": {"code": 500, "message": "boom", "type": "server_error"}}"#
        let read = try JSONDecoder().decode(OpenAIErrorBody.self, from: Data(llama.utf8))
        #expect(read.error.message == "boom" && read.error.code == nil)
    }
}
