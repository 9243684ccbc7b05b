import Foundation
import LocalEngine
import TestSupport
import Testing

@testable import Server

/// The OpenAI-compatible routes: errors in OpenAI's shape without a model, then completions on
/// the real 0.5B model (whole, streamed with usage, by a JSON schema, with a tool).
@Suite(.serialized) struct OpenAIAPITests {
    @Test func errorsAreInOpenAIsShape() async throws {
        let server = try await TestServer.shared()
        let (alice, _, _) = try await server.pair()
        let bad = try await HTTPClient(port: server.port, token: "not-a-token").post(
            "/v1/chat/completions", ["model": "x", "messages": [["role": "user", "content": "hi"]]])
        #expect(bad.status == 401)
        let error = try #require(try bad.json()["error"] as? [String: Any])
        #expect(error["type"] as? String == "invalid_request_error")
        #expect(error["code"] as? String == "invalid_api_key")
        #expect(error.keys.contains("param"))
        let client = server.client(alice)
        let twoChoices = try await client.post(
            "/v1/chat/completions", ["model": "x", "n": 2, "messages": [["role": "user", "content": "hi"]]])
        #expect(twoChoices.status == 400)
        #expect((try twoChoices.json()["error"] as? [String: Any])?["param"] as? String == "n")
        let badRole = try await client.post(
            "/v1/chat/completions", ["model": "x", "messages": [["role": "robot", "content": "hi"]]])
        #expect((try badRole.json()["error"] as? [String: Any])?["param"] as? String == "messages[0].role")
        let missing = try await client.post("/v1/chat/completions", ["messages": [["role": "user", "content": "hi"]]])
        #expect(missing.status == 400)
        #expect((try missing.json()["error"] as? [String: Any])?["param"] as? String == "model")
        let badSchema = try await client.post(
            "/v1/chat/completions",
            [
                "model": "x", "messages": [["role": "user", "content": "hi"]],
                "response_format": [
                    "type": "json_schema", "json_schema": ["name": "t", "schema": ["type": "object", "allOf": []]],
                ],
            ])
        #expect(badSchema.status == 400)
        #expect(
            (try badSchema.json()["error"] as? [String: Any])?["param"] as? String
                == "response_format.json_schema.schema")
        let noModel = try await client.post(
            "/v1/chat/completions", ["model": "x", "messages": [["role": "user", "content": "hi"]]])
        #expect(noModel.status == 503)
        #expect((try noModel.json()["error"] as? [String: Any])?["code"] as? String == "model_unavailable")
        let models = try await client.get("/v1/models").json()
        #expect(models["object"] as? String == "list")
        #expect((models["data"] as? [Any])?.isEmpty == true)
    }

    /// Async, its waits for the model off Swift's cooperative threads (see
    /// `IntelligenceAPITests.jobsRunOnTheModelAndStreamToTheirOwner`).
    @Test func completionsRunOnTheModel() async throws {
        let model = LocalLanguageModel(model: .path(try RealModels.path(RealModels.qwen))).system
        let server = try await TestServer(model: .ready(model, name: RealModels.qwen))
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        var client = server.client(alice)
        client.timeout = 180  // a whole completion, the model's first load included
        let post = { [client] (json: [String: Any]) in
            try await client.post("/v1/chat/completions", json)
        }
        let models = try await client.get("/v1/models").json()
        #expect(((models["data"] as? [[String: Any]])?.first)?["id"] as? String == RealModels.qwen)

        let plain = try await post(
            [
                "model": RealModels.qwen, "max_tokens": 8, "temperature": 0,
                "messages": [["role": "system", "content": "Be brief."], ["role": "user", "content": "Say hello."]],
            ])
        #expect(plain.status == 200)
        let body = try plain.json()
        #expect(body["object"] as? String == "chat.completion")
        let choice = try #require((body["choices"] as? [[String: Any]])?.first)
        let content = try #require((choice["message"] as? [String: Any])?["content"] as? String)
        #expect(!content.isEmpty)
        #expect(["stop", "length"].contains(choice["finish_reason"] as? String))
        let usage = try #require(body["usage"] as? [String: Any])
        #expect((usage["prompt_tokens"] as? Int ?? 0) > 0)
        #expect((1...8).contains(usage["completion_tokens"] as? Int ?? 0))

        // Streamed, with the usage chunk at the end.
        let socket = try TestSocket(port: server.port, timeout: 120)
        let payload = try JSONSerialization.data(withJSONObject: [
            "model": RealModels.qwen, "max_tokens": 6, "temperature": 0, "stream": true,
            "stream_options": ["include_usage": true], "messages": [["role": "user", "content": "Count to five."]],
        ])
        let head =
            "POST /v1/chat/completions HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer \(server.token(alice))\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(payload.count)\r\n\r\n"
        let streamed = try await {
            try await socket.write(head)
            try await socket.write(Array(payload))
            return try await HTTPClient.readResponse(from: socket)
        }()
        #expect(streamed.status == 200)
        #expect(streamed.headers["content-type"] == "text/event-stream")
        let events = streamed.text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(events.last == "data: [DONE]")
        let chunks = try events.dropLast().map { event -> [String: Any] in
            #expect(event.hasPrefix("data: "))
            return try #require(
                try JSONSerialization.jsonObject(with: Data(event.dropFirst(6).utf8)) as? [String: Any])
        }
        #expect(chunks.allSatisfy { $0["object"] as? String == "chat.completion.chunk" })
        let usageChunk = try #require(chunks.last)
        #expect((usageChunk["choices"] as? [Any])?.isEmpty == true)
        #expect(((usageChunk["usage"] as? [String: Any])?["completion_tokens"] as? Int ?? 0) > 0)
        let text = chunks.compactMap {
            (($0["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any])?["content"] as? String
        }.joined()
        #expect(!text.isEmpty)

        // A JSON schema is followed.
        let schema: [String: Any] = [
            "type": "object", "required": ["name", "age", "mood"],
            "properties": [
                "name": ["type": "string"], "age": ["type": "integer", "minimum": 1, "maximum": 120],
                "mood": ["type": "string", "enum": ["happy", "sad"]],
            ],
        ]
        let structured = try await post(
            [
                "model": RealModels.qwen, "temperature": 0,
                "messages": [["role": "user", "content": "Describe a person."]],
                "response_format": [
                    "type": "json_schema", "json_schema": ["name": "person", "strict": true, "schema": schema],
                ],
            ])
        #expect(structured.status == 200)
        let json = try #require(
            ((try structured.json()["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"]
                as? String)
        let person = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(person["name"] is String)
        #expect((1...120).contains(person["age"] as? Int ?? 0))
        #expect(["happy", "sad"].contains(person["mood"] as? String))

        // A named tool choice returns the call, in OpenAI's shape.
        let called = try await post(
            [
                "model": RealModels.qwen, "temperature": 0,
                "messages": [["role": "user", "content": "What is the weather in Paris?"]],
                "tools": [
                    [
                        "type": "function",
                        "function": [
                            "name": "get_weather", "description": "The weather in a city.",
                            "parameters": [
                                "type": "object", "required": ["city"], "properties": ["city": ["type": "string"]],
                            ],
                        ],
                    ]
                ],
                "tool_choice": ["type": "function", "function": ["name": "get_weather"]],
            ])
        #expect(called.status == 200)
        let calledChoice = try #require((try called.json()["choices"] as? [[String: Any]])?.first)
        #expect(calledChoice["finish_reason"] as? String == "tool_calls")
        let call = try #require(((calledChoice["message"] as? [String: Any])?["tool_calls"] as? [[String: Any]])?.first)
        #expect(call["type"] as? String == "function")
        let function = try #require(call["function"] as? [String: Any])
        #expect(function["name"] as? String == "get_weather")
        let arguments = try #require(function["arguments"] as? String)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(arguments.utf8)) as? [String: Any])
        #expect(parsed["city"] is String)
    }
}
