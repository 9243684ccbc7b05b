/// The bodies the OpenAI-compatible API answers with, in OpenAI's field names.
struct OpenAIModelList: Encodable {
    var object = "list"
    var data: [OpenAIModelEntry]
}

struct OpenAIModelEntry: Encodable {
    var id: String
    var object = "model"
    var created: Int
    var ownedBy: String

    init(id: String, created: Int, ownedBy: String) {
        self.id = id
        self.created = created
        self.ownedBy = ownedBy
    }

    enum CodingKeys: String, CodingKey {
        case id, object, created
        case ownedBy = "owned_by"
    }
}

struct OpenAIUsage: Encodable {
    var promptTokens: Int
    var completionTokens: Int
    var totalTokens: Int

    init(_ outcome: CompletionRunner.Outcome) {
        promptTokens = outcome.promptTokens
        completionTokens = outcome.completionTokens
        totalTokens = outcome.promptTokens + outcome.completionTokens
    }

    enum CodingKeys: String, CodingKey {
        case promptTokens = "prompt_tokens"
        case completionTokens = "completion_tokens"
        case totalTokens = "total_tokens"
    }
}

/// A whole completion (`object: chat.completion`).
struct OpenAICompletion: Encodable {
    struct Message: Encodable {
        var role: String
        var content: String?
        var toolCalls: [ToolCallValue]?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(role, forKey: .role)
            try container.encode(content, forKey: .content)  // null when there are only tool calls
            try container.encodeIfPresent(toolCalls, forKey: .toolCalls)
        }
        enum CodingKeys: String, CodingKey {
            case role, content
            case toolCalls = "tool_calls"
        }
    }

    struct Choice: Encodable {
        var index: Int
        var message: Message
        var finishReason: String
        enum CodingKeys: String, CodingKey {
            case index, message
            case finishReason = "finish_reason"
        }
    }

    var id: String
    var object = "chat.completion"
    var created: Int
    var model: String
    var choices: [Choice]
    var usage: OpenAIUsage

    init(id: String, created: Int, model: String, choices: [Choice], usage: OpenAIUsage) {
        self.id = id
        self.created = created
        self.model = model
        self.choices = choices
        self.usage = usage
    }
}

/// One event of a streamed completion (`object: chat.completion.chunk`).
struct OpenAIChunk: Encodable {
    struct ToolCallDelta: Encodable {
        var index: Int
        var id: String
        var type: String
        var function: ToolCallValue.Function
    }

    struct Delta: Encodable {
        var role: String?
        var content: String?
        var toolCalls: [ToolCallDelta]?

        init(role: String? = nil, content: String? = nil, toolCalls: [ToolCallDelta]? = nil) {
            self.role = role
            self.content = content
            self.toolCalls = toolCalls
        }

        enum CodingKeys: String, CodingKey {
            case role, content
            case toolCalls = "tool_calls"
        }
    }

    struct Choice: Encodable {
        var index: Int
        var delta: Delta
        var finishReason: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encode(delta, forKey: .delta)
            try container.encode(finishReason, forKey: .finishReason)  // null until the last
        }
        enum CodingKeys: String, CodingKey {
            case index, delta
            case finishReason = "finish_reason"
        }
    }

    var id: String
    var object = "chat.completion.chunk"
    var created: Int
    var model: String
    var choices: [Choice]
    /// Only on the last chunk, with `stream_options.include_usage`.
    var usage: OpenAIUsage?

    init(id: String, created: Int, model: String, choices: [Choice], usage: OpenAIUsage?) {
        self.id = id
        self.created = created
        self.model = model
        self.choices = choices
        self.usage = usage
    }
}

/// The JSON schemas of the OpenAI routes in the OpenAPI document.
enum OpenAISchemas {
    static let modelList = ##"""
        {"type": "object", "required": ["object", "data"], "properties": {
          "object": {"type": "string"},
          "data": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "string"}, "object": {"type": "string"}, "created": {"type": "integer"},
            "owned_by": {"type": "string"}}}}}}
        """##

    static let chatCompletionRequest = ##"""
        {"type": "object", "required": ["model", "messages"], "properties": {
          "model": {"type": "string"},
          "messages": {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["role"], "properties": {
            "role": {"type": "string", "enum": ["system", "developer", "user", "assistant", "tool"]},
            "content": {"type": "string", "nullable": true},
            "name": {"type": "string"},
            "tool_call_id": {"type": "string"},
            "tool_calls": {"type": "array", "items": {"type": "object", "required": ["id", "type", "function"], "properties": {
              "id": {"type": "string"}, "type": {"type": "string", "enum": ["function"]},
              "function": {"type": "object", "required": ["name", "arguments"], "properties": {
                "name": {"type": "string"}, "arguments": {"type": "string"}}}}}}}}},
          "stream": {"type": "boolean"},
          "stream_options": {"type": "object", "properties": {"include_usage": {"type": "boolean"}}},
          "temperature": {"type": "number", "minimum": 0, "maximum": 2},
          "top_p": {"type": "number", "minimum": 0, "maximum": 1},
          "max_tokens": {"type": "integer", "minimum": 1},
          "max_completion_tokens": {"type": "integer", "minimum": 1},
          "seed": {"type": "integer"},
          "stop": {"type": "array", "maxItems": 4, "items": {"type": "string", "minLength": 1}},
          "n": {"type": "integer", "enum": [1]},
          "response_format": {"type": "object", "required": ["type"], "properties": {
            "type": {"type": "string", "enum": ["text", "json_object", "json_schema"], "description": "json_schema and json_object are enforced by constrained decoding; json_object: one JSON object of any keys and values nested at most 6 levels deep (the object is one), no whitespace but ': ' and ', ', numbers without exponents."},
            "json_schema": {"type": "object", "required": ["name"], "properties": {
              "name": {"type": "string"}, "description": {"type": "string"}, "strict": {"type": "boolean"},
              "schema": {"type": "object"}}}}},
          "tools": {"type": "array", "items": {"type": "object", "required": ["type", "function"], "properties": {
            "type": {"type": "string", "enum": ["function"]},
            "function": {"type": "object", "required": ["name"], "properties": {
              "name": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}, "description": {"type": "string"},
              "parameters": {"type": "object"}}}}}},
          "tool_choice": {"type": "string", "enum": ["auto", "none", "required"]}}}
        """##

    static let chatCompletion = ##"""
        {"type": "object", "required": ["id", "object", "created", "model", "choices"], "properties": {
          "id": {"type": "string"}, "object": {"type": "string"}, "created": {"type": "integer"},
          "model": {"type": "string"},
          "choices": {"type": "array", "items": {"type": "object", "properties": {
            "index": {"type": "integer"}, "finish_reason": {"type": "string"},
            "message": {"type": "object", "properties": {
              "role": {"type": "string"}, "content": {"type": "string", "nullable": true},
              "tool_calls": {"type": "array", "items": {"type": "object"}}}}}}},
          "usage": {"type": "object", "properties": {
            "prompt_tokens": {"type": "integer"}, "completion_tokens": {"type": "integer"},
            "total_tokens": {"type": "integer"}}}}}
        """##
}
