import Foundation

/// The body of `POST /v1/chat/completions`, as OpenAI's API defines it; fields Sotto does not
/// act on (`user`, `logit_bias`, …) are ignored, as OpenAI ignores unknown ones.
struct ChatCompletionRequest: Decodable, Sendable {
    var model: String
    var messages: [OpenAIMessage]
    var stream: Bool?
    var streamOptions: StreamOptions?
    var temperature: Double?
    var topP: Double?
    var maxTokens: Int?
    var maxCompletionTokens: Int?
    var seed: Int64?
    var stop: StopSequences?
    var n: Int?
    var responseFormat: ResponseFormat?
    var tools: [ChatTool]?
    var toolChoice: ToolChoice?
    var parallelToolCalls: Bool?

    enum CodingKeys: String, CodingKey {
        case model, messages, stream, temperature, seed, stop, n, tools
        case streamOptions = "stream_options"
        case topP = "top_p"
        case maxTokens = "max_tokens"
        case maxCompletionTokens = "max_completion_tokens"
        case responseFormat = "response_format"
        case toolChoice = "tool_choice"
        case parallelToolCalls = "parallel_tool_calls"
    }

    struct StreamOptions: Decodable, Sendable {
        var includeUsage: Bool?
        enum CodingKeys: String, CodingKey { case includeUsage = "include_usage" }
    }

    /// `stop`: one string or up to four.
    struct StopSequences: Decodable, Sendable {
        var values: [String]
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let one = try? container.decode(String.self) {
                values = [one]
            } else {
                values = try container.decode([String].self)
            }
        }
    }

    /// `response_format`: `{"type": "text" | "json_object"}` or a `json_schema`.
    struct ResponseFormat: Decodable, Sendable {
        var type: String
        var jsonSchema: JSONSchemaFormat?
        enum CodingKeys: String, CodingKey {
            case type
            case jsonSchema = "json_schema"
        }
    }

    struct JSONSchemaFormat: Decodable, Sendable {
        var name: String
        var description: String?
        var schema: JSONValue?
        var strict: Bool?
    }

    /// `tool_choice`: `"auto"`, `"none"`, `"required"`, or `{"type": "function", "function": {"name"}}`.
    enum ToolChoice: Decodable, Sendable, Equatable {
        case auto, none, required
        case function(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let word = try? container.decode(String.self) {
                switch word {
                case "auto": self = .auto
                case "none": self = .none
                case "required": self = .required
                default:
                    throw DecodingError.dataCorruptedError(
                        in: container, debugDescription: "must be 'auto', 'none', 'required' or a named function")
                }
                return
            }
            struct Named: Decodable {
                struct Function: Decodable { var name: String }
                var type: String
                var function: Function
            }
            let named = try container.decode(Named.self)
            guard named.type == "function" else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "type must be 'function'")
            }
            self = .function(named.function.name)
        }
    }
}

/// One message of `messages`.
struct OpenAIMessage: Decodable, Sendable {
    var role: String
    var content: MessageContent?
    var name: String?
    var toolCalls: [ToolCallValue]?
    var toolCallID: String?

    enum CodingKeys: String, CodingKey {
        case role, content, name
        case toolCalls = "tool_calls"
        case toolCallID = "tool_call_id"
    }

    /// `content`: a string, or an array of parts of which the text ones are read.
    struct MessageContent: Decodable, Sendable {
        var text: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self.text = text
                return
            }
            struct Part: Decodable {
                var type: String
                var text: String?
            }
            let parts = try container.decode([Part].self)
            guard parts.allSatisfy({ $0.type == "text" }) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "only text parts are supported (images are not)")
            }
            text = parts.compactMap(\.text).joined(separator: "\n")
        }
    }
}

/// A tool call as OpenAI writes it, in an assistant message or a response.
struct ToolCallValue: Codable, Sendable, Equatable {
    struct Function: Codable, Sendable, Equatable {
        var name: String
        /// The arguments as a JSON text.
        var arguments: String
    }
    var id: String
    var type: String
    var function: Function
}

/// One of `tools`: `{"type": "function", "function": {"name", "description", "parameters"}}`.
struct ChatTool: Decodable, Sendable {
    struct Function: Decodable, Sendable {
        var name: String
        var description: String?
        var parameters: JSONValue?
    }
    var type: String
    var function: Function
}

/// Any JSON value, kept as it was sent (schemas, tool parameters).
indirect enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Keys in the order they were sent.
    case object([(String, JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: Key.self) {
            // JSONDecoder does not keep key order; properties keep it through `x-order` or
            // the order of `required` below, which is what a schema's order means to us.
            self = .object(
                try container.allKeys.map { ($0.stringValue, try container.decode(JSONValue.self, forKey: $0)) })
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !container.isAtEnd { values.append(try container.decode(JSONValue.self)) }
            self = .array(values)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let value):
            var container = encoder.singleValueContainer()
            if let integer = Int64(exactly: value) {
                try container.encode(integer)
            } else {
                try container.encode(value)
            }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let pairs):
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in pairs { try container.encode(value, forKey: Key(stringValue: key)) }
        }
    }

    subscript(key: String) -> JSONValue? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    /// The value as a JSON text (keys in order).
    var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "null"
    }
}
