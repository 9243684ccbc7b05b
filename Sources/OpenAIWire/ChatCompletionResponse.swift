import Foundation

/// The bodies a chat-completions endpoint answers with, in OpenAI's field names: written by
/// Sotto's server, read by `OpenAIModel`. Reading is lenient where servers differ (a chunk
/// without `id`, `created` or `model`; a choice without `index`).

/// `GET /v1/models`.
public struct OpenAIModelList: Codable, Sendable {
    public var object = "list"
    public var data: [OpenAIModelEntry]
    public init(data: [OpenAIModelEntry]) { self.data = data }
}

public struct OpenAIModelEntry: Codable, Sendable {
    public var id: String
    public var object = "model"
    public var created: Int
    public var ownedBy: String

    public init(id: String, created: Int, ownedBy: String) {
        self.id = id
        self.created = created
        self.ownedBy = ownedBy
    }

    enum CodingKeys: String, CodingKey {
        case id, object, created
        case ownedBy = "owned_by"
    }
}

public struct OpenAIUsage: Codable, Sendable, Equatable {
    public var promptTokens: Int
    public var completionTokens: Int
    public var totalTokens: Int

    public init(promptTokens: Int, completionTokens: Int) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
        totalTokens = promptTokens + completionTokens
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        promptTokens = try container.decode(Int.self, forKey: .promptTokens)
        completionTokens = try container.decode(Int.self, forKey: .completionTokens)
        totalTokens = try container.decodeIfPresent(Int.self, forKey: .totalTokens) ?? promptTokens + completionTokens
    }

    enum CodingKeys: String, CodingKey {
        case promptTokens = "prompt_tokens"
        case completionTokens = "completion_tokens"
        case totalTokens = "total_tokens"
    }
}

/// A whole completion (`object: chat.completion`).
public struct OpenAICompletion: Codable, Sendable {
    public struct Message: Codable, Sendable {
        public var role: String
        public var content: String?
        public var toolCalls: [ToolCallValue]?

        public init(role: String, content: String?, toolCalls: [ToolCallValue]?) {
            self.role = role
            self.content = content
            self.toolCalls = toolCalls
        }

        public func encode(to encoder: any Encoder) throws {
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

    public struct Choice: Codable, Sendable {
        public var index: Int
        public var message: Message
        public var finishReason: String
        public init(index: Int, message: Message, finishReason: String) {
            self.index = index
            self.message = message
            self.finishReason = finishReason
        }
        enum CodingKeys: String, CodingKey {
            case index, message
            case finishReason = "finish_reason"
        }
    }

    public var id: String
    public var object = "chat.completion"
    public var created: Int
    public var model: String
    public var choices: [Choice]
    public var usage: OpenAIUsage

    public init(id: String, created: Int, model: String, choices: [Choice], usage: OpenAIUsage) {
        self.id = id
        self.created = created
        self.model = model
        self.choices = choices
        self.usage = usage
    }
}

/// One event of a streamed completion (`object: chat.completion.chunk`).
public struct OpenAIChunk: Codable, Sendable {
    /// A tool call's piece: the first names it (`id`, `function.name`), the rest add to its
    /// `function.arguments`.
    public struct ToolCallDelta: Codable, Sendable {
        public struct Function: Codable, Sendable {
            public var name: String?
            public var arguments: String?
            public init(name: String?, arguments: String?) {
                self.name = name
                self.arguments = arguments
            }
        }
        public var index: Int
        public var id: String?
        public var type: String?
        public var function: Function?

        public init(index: Int, id: String?, type: String?, function: Function?) {
            self.index = index
            self.id = id
            self.type = type
            self.function = function
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            index = try container.decodeIfPresent(Int.self, forKey: .index) ?? 0
            id = try container.decodeIfPresent(String.self, forKey: .id)
            type = try container.decodeIfPresent(String.self, forKey: .type)
            function = try container.decodeIfPresent(Function.self, forKey: .function)
        }

        enum CodingKeys: String, CodingKey { case index, id, type, function }
    }

    public struct Delta: Codable, Sendable {
        public var role: String?
        public var content: String?
        public var toolCalls: [ToolCallDelta]?

        public init(role: String? = nil, content: String? = nil, toolCalls: [ToolCallDelta]? = nil) {
            self.role = role
            self.content = content
            self.toolCalls = toolCalls
        }

        enum CodingKeys: String, CodingKey {
            case role, content
            case toolCalls = "tool_calls"
        }
    }

    public struct Choice: Codable, Sendable {
        public var index: Int
        public var delta: Delta
        public var finishReason: String?

        public init(index: Int, delta: Delta, finishReason: String?) {
            self.index = index
            self.delta = delta
            self.finishReason = finishReason
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            index = try container.decodeIfPresent(Int.self, forKey: .index) ?? 0
            delta = try container.decodeIfPresent(Delta.self, forKey: .delta) ?? Delta()
            finishReason = try container.decodeIfPresent(String.self, forKey: .finishReason)
        }

        public func encode(to encoder: any Encoder) throws {
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

    public var id: String
    public var object = "chat.completion.chunk"
    public var created: Int
    public var model: String
    public var choices: [Choice]
    /// Only on the last chunk, with `stream_options.include_usage`.
    public var usage: OpenAIUsage?

    public init(id: String, created: Int, model: String, choices: [Choice], usage: OpenAIUsage?) {
        self.id = id
        self.created = created
        self.model = model
        self.choices = choices
        self.usage = usage
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id) ?? ""
        object = try container.decodeIfPresent(String.self, forKey: .object) ?? "chat.completion.chunk"
        created = try container.decodeIfPresent(Int.self, forKey: .created) ?? 0
        model = try container.decodeIfPresent(String.self, forKey: .model) ?? ""
        choices = try container.decodeIfPresent([Choice].self, forKey: .choices) ?? []
        usage = try container.decodeIfPresent(OpenAIUsage.self, forKey: .usage)
    }

    enum CodingKeys: String, CodingKey { case id, object, created, model, choices, usage }
}

/// OpenAI's error body, `{"error": {"message", "type", "param", "code"}}`: what the server
/// answers a failed request with, and what an endpoint may send inside a stream.
public struct OpenAIErrorBody: Codable, Sendable {
    public struct Inner: Codable, Sendable {
        public var message: String?
        public var type: String?
        public var param: String?
        public var code: String?

        public init(message: String?, type: String?, param: String?, code: String?) {
            self.message = message
            self.type = type
            self.param = param
            self.code = code
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            message = try container.decodeIfPresent(String.self, forKey: .message)
            type = try container.decodeIfPresent(String.self, forKey: .type)
            param = try container.decodeIfPresent(String.self, forKey: .param)
            // Some servers send a number (llama-server's HTTP status): read as no code.
            code = (try? container.decodeIfPresent(String.self, forKey: .code)) ?? nil
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(message, forKey: .message)
            try container.encode(type, forKey: .type)
            try container.encode(param, forKey: .param)  // null, as OpenAI writes it
            try container.encode(code, forKey: .code)
        }

        enum CodingKeys: String, CodingKey { case message, type, param, code }
    }

    public var error: Inner
    public init(error: Inner) { self.error = error }
}
