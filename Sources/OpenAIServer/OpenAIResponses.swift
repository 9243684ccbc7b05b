import OpenAIWire
import ServerKit

extension OpenAIUsage {
    package init(_ outcome: CompletionRunner.Outcome) {
        self.init(promptTokens: outcome.promptTokens, completionTokens: outcome.completionTokens)
    }
}

/// The JSON schemas of the OpenAI routes in the OpenAPI document.
package enum OpenAISchemas {
    package static let modelList = ##"""
        {"type": "object", "required": ["object", "data"], "properties": {
          "object": {"type": "string"},
          "data": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "string"}, "object": {"type": "string"}, "created": {"type": "integer"},
            "owned_by": {"type": "string"}}}}}}
        """##

    package static let chatCompletionRequest = ##"""
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

    package static let chatCompletion = ##"""
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
