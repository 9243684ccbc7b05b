import Foundation
import FoundationModels
import TestSupport
import Testing

@testable import OpenAIServer
@testable import Server

/// A client's JSON Schema costs the server in proportion to its size, never to what it would
/// expand to: schemas that would grow past ``SchemaExpansion/limit`` automaton states are a 400
/// naming the schema, answered before any model is asked (these servers have none).
@Suite struct SchemaBoundTests {
    /// The issue's schema: `"type": ["object", "object"]` around the level below, `depth` deep.
    static func doublingTypes(depth: Int) -> [String: Any] {
        var schema: [String: Any] = ["type": "string"]
        for _ in 0..<depth {
            schema = ["type": ["object", "object"], "properties": ["a": schema], "required": ["a"]]
        }
        return schema
    }

    /// Definitions each referring twice to the next: 2^links copies once inlined.
    static func doublingReferences(links: Int) -> [String: Any] {
        var definitions: [String: Any] = ["d\(links)": ["type": "string"]]
        for link in 0..<links {
            definitions["d\(link)"] = [
                "type": "object", "required": ["a", "b"],
                "properties": ["a": ["$ref": "#/$defs/d\(link + 1)"], "b": ["$ref": "#/$defs/d\(link + 1)"]],
            ]
        }
        return ["$defs": definitions, "$ref": "#/$defs/d0"]
    }

    func completion(responseSchema schema: [String: Any]) -> [String: Any] {
        [
            "model": "x", "messages": [["role": "user", "content": "hi"]],
            "response_format": ["type": "json_schema", "json_schema": ["name": "t", "schema": schema]],
        ]
    }

    func completion(toolParameters schema: [String: Any]) -> [String: Any] {
        [
            "model": "x", "messages": [["role": "user", "content": "hi"]],
            "tools": [["type": "function", "function": ["name": "f", "parameters": schema]]],
        ]
    }

    func error(of response: WireResponse) throws -> [String: Any] {
        try #require(try response.json()["error"] as? [String: Any])
    }

    /// Each level is read once (its listed types share it), so the issue's schema costs what its
    /// bytes do and reaches the model check (503: this server has none); past
    /// ``JSONSchemaReader/maximumDepth`` levels it is a 400.
    @Test func theIssuesDoublingTypesCostWhatTheirBytesDo() async throws {
        let server = try await TestServer.shared()
        let (alice, _, _) = try await server.pair()
        let client = server.client(alice)
        for depth in [18, 24, 30] {
            let response = try await client.post(
                "/v1/chat/completions", completion(responseSchema: Self.doublingTypes(depth: depth)))
            #expect(response.status == 503, "\(response.text)")
            let tool = try await client.post(
                "/v1/chat/completions", completion(toolParameters: Self.doublingTypes(depth: depth)))
            #expect(tool.status == 503, "\(tool.text)")
        }
        let deep = try await client.post(
            "/v1/chat/completions", completion(responseSchema: Self.doublingTypes(depth: 40)))
        #expect(deep.status == 400, "\(deep.text)")
        #expect((try error(of: deep)["message"] as? String ?? "").contains("nests more than"))
        #expect(try error(of: deep)["param"] as? String == "response_format.json_schema.schema")
    }

    @Test func referencesThatDoubleAreA400NamingTheLimit() async throws {
        let server = try await TestServer.shared()
        let (alice, _, _) = try await server.pair()
        let client = server.client(alice)
        for body in [
            completion(responseSchema: Self.doublingReferences(links: 40)),
            completion(toolParameters: Self.doublingReferences(links: 40)),
        ] {
            let response = try await client.post("/v1/chat/completions", body)
            #expect(response.status == 400, "\(response.text)")
            let message = try error(of: response)["message"] as? String ?? ""
            #expect(message.contains("too large"), "\(message)")
            #expect(message.contains("\(SchemaExpansion.limit)"), "\(message)")
        }
        // A few links are an ordinary schema (it reaches the model check).
        let small = try await client.post(
            "/v1/chat/completions", completion(responseSchema: Self.doublingReferences(links: 4)))
        #expect(small.status == 503, "\(small.text)")
    }

    @Test(.onTestThreads) func nestedCountsMultiply() throws {
        let inner: [String: Any] = ["type": "array", "maxItems": 1000, "items": ["type": "integer"]]
        let outer: [String: Any] = ["type": "array", "maxItems": 1000, "items": inner]
        #expect(throws: JSONSchemaReader.Failure.self) { try read(outer) }
        #expect(throws: JSONSchemaReader.Failure.self) {
            try read(["type": "array", "minItems": 9_000_000_000_000_000_000.0, "items": ["type": "string"]])
        }
        _ = try read(["type": "array", "maxItems": 20, "items": ["type": "integer"]])
    }

    @Test(.onTestThreads) func aListOfTypesBesideAnyOfIsRefused() {
        #expect(throws: JSONSchemaReader.Failure.self) {
            try read(["type": ["string", "null"], "anyOf": [["type": "string"], ["type": "null"]]])
        }
    }

    @Test(.onTestThreads) func listedTypesAreReadOnceEach() throws {
        let schema = try read([
            "type": ["object", "null", "object"], "properties": ["n": ["type": ["integer", "null"]]],
            "required": ["n"],
        ])
        guard case .anyOf(_, _, let choices) = schema.root else {
            Issue.record("\(schema.root)")
            return
        }
        #expect(choices.count == 2)
        #expect(SchemaExpansion.estimate(schema) ?? .max < 1000)
    }

    @Test(.onTestThreads) func theEstimateCountsEveryCopyTheCompilerMakes() throws {
        let one = try #require(SchemaExpansion.estimate(try read(["type": "integer"])))
        let ten = try #require(
            SchemaExpansion.estimate(
                try read(["type": "array", "minItems": 10, "maxItems": 10, "items": ["type": "integer"]])))
        #expect(ten >= 10 * one)
        #expect(SchemaExpansion.patternWeight("[a-z]{1,64}@[a-z]{2,8}") == 22 + 64 + 8)
    }

    private func read(_ schema: [String: Any]) throws -> GenerationSchema {
        let data = try JSONSerialization.data(withJSONObject: schema)
        let content = try GeneratedContent(json: String(decoding: data, as: UTF8.self))
        return try JSONSchemaReader.schema(from: content, name: "t", path: "$")
    }
}
