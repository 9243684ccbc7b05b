import Foundation

/// The body of `POST /v1/chat/completions`, as OpenAI's API defines it: what Sotto's server reads
/// and what `OpenAIModel` sends. Fields Sotto does not act on (`user`, `logit_bias`, …) are not
/// here and are ignored when read, as OpenAI ignores unknown ones.
public struct ChatCompletionRequest: Codable, Sendable {
    public var model: String
    public var messages: [OpenAIMessage]
    public var stream: Bool?
    public var streamOptions: StreamOptions?
    public var temperature: Double?
    public var topP: Double?
    public var maxTokens: Int?
    public var maxCompletionTokens: Int?
    public var seed: Int64?
    public var stop: StopSequences?
    public var n: Int?
    public var responseFormat: ResponseFormat?
    public var tools: [ChatTool]?
    public var toolChoice: ToolChoice?
    public var parallelToolCalls: Bool?

    public init(model: String, messages: [OpenAIMessage]) {
        self.model = model
        self.messages = messages
    }

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

    public struct StreamOptions: Codable, Sendable {
        public var includeUsage: Bool?
        public init(includeUsage: Bool?) { self.includeUsage = includeUsage }
        enum CodingKeys: String, CodingKey { case includeUsage = "include_usage" }
    }

    /// `stop`: one string or up to four (written as a list).
    public struct StopSequences: Codable, Sendable {
        public var values: [String]
        public init(_ values: [String]) { self.values = values }
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let one = try? container.decode(String.self) {
                values = [one]
            } else {
                values = try container.decode([String].self)
            }
        }
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(values)
        }
    }

    /// `response_format`: `{"type": "text" | "json_object"}` or a `json_schema`.
    public struct ResponseFormat: Codable, Sendable {
        public var type: String
        public var jsonSchema: JSONSchemaFormat?
        public init(type: String, jsonSchema: JSONSchemaFormat? = nil) {
            self.type = type
            self.jsonSchema = jsonSchema
        }
        enum CodingKeys: String, CodingKey {
            case type
            case jsonSchema = "json_schema"
        }
    }

    public struct JSONSchemaFormat: Codable, Sendable {
        public var name: String
        public var description: String?
        public var schema: JSONValue?
        public var strict: Bool?
        public init(name: String, description: String? = nil, schema: JSONValue?, strict: Bool?) {
            self.name = name
            self.description = description
            self.schema = schema
            self.strict = strict
        }
    }

    /// `tool_choice`: `"auto"`, `"none"`, `"required"`, or `{"type": "function", "function": {"name"}}`.
    public enum ToolChoice: Codable, Sendable, Equatable {
        case auto, none, required
        case function(String)

        private struct Named: Codable {
            struct Function: Codable { var name: String }
            var type: String
            var function: Function
        }

        public init(from decoder: any Decoder) throws {
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
            let named = try container.decode(Named.self)
            guard named.type == "function" else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "type must be 'function'")
            }
            self = .function(named.function.name)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .auto: try container.encode("auto")
            case .none: try container.encode("none")
            case .required: try container.encode("required")
            case .function(let name): try container.encode(Named(type: "function", function: .init(name: name)))
            }
        }
    }
}

/// One message of `messages`.
public struct OpenAIMessage: Codable, Sendable {
    public var role: String
    public var content: MessageContent?
    public var name: String?
    public var toolCalls: [ToolCallValue]?
    public var toolCallID: String?

    public init(
        role: String, content: String?, name: String? = nil, toolCalls: [ToolCallValue]? = nil,
        toolCallID: String? = nil
    ) {
        self.role = role
        self.content = content.map(MessageContent.init)
        self.name = name
        self.toolCalls = toolCalls
        self.toolCallID = toolCallID
    }

    enum CodingKeys: String, CodingKey {
        case role, content, name
        case toolCalls = "tool_calls"
        case toolCallID = "tool_call_id"
    }

    /// Written with `content` always present: `null` for an assistant message of tool calls only.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(role, forKey: .role)
        try container.encode(content, forKey: .content)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(toolCalls, forKey: .toolCalls)
        try container.encodeIfPresent(toolCallID, forKey: .toolCallID)
    }

    /// `content`: a string, or an array of parts of which the text ones are read (written as a
    /// string).
    public struct MessageContent: Codable, Sendable {
        public var text: String
        public init(_ text: String) { self.text = text }
        public init(from decoder: any Decoder) throws {
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
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
    }
}

/// A tool call as OpenAI writes it, in an assistant message or a response.
public struct ToolCallValue: Codable, Sendable, Equatable {
    public struct Function: Codable, Sendable, Equatable {
        public var name: String
        /// The arguments as a JSON text.
        public var arguments: String
        public init(name: String, arguments: String) {
            self.name = name
            self.arguments = arguments
        }
    }
    public var id: String
    public var type: String
    public var function: Function
    public init(id: String, type: String = "function", function: Function) {
        self.id = id
        self.type = type
        self.function = function
    }
}

/// One of `tools`: `{"type": "function", "function": {"name", "description", "parameters"}}`.
public struct ChatTool: Codable, Sendable {
    public struct Function: Codable, Sendable {
        public var name: String
        public var description: String?
        public var parameters: JSONValue?
        public init(name: String, description: String?, parameters: JSONValue?) {
            self.name = name
            self.description = description
            self.parameters = parameters
        }
    }
    public var type: String
    public var function: Function
    public init(type: String = "function", function: Function) {
        self.type = type
        self.function = function
    }
}
