import Foundation
import ServerKit

/// The assistant's part of the OpenAPI document: its path parameter and data types, merged
/// into `components` by ``OpenAPIDocument`` (the routes themselves are described in
/// ``AssistantAPI``).
package enum AssistantOpenAPI {
    package static func ref(_ name: String) -> String { APIOperation.ref(name) }

    package static let idPattern = "^[A-Za-z0-9_-]{1,64}$"

    package static let settingsBody = ##"""
        {"type": "object", "properties": {
          "stream_responses": {"type": "boolean"},
          "show_token_counts": {"type": "boolean"},
          "response_language": {"type": "string", "enum": ["", "en", "fr", "de", "es", "it", "pt", "nl", "ja", "zh", "ko"]},
          "appearance": {"type": "string", "enum": ["system", "light", "dark"]}}}
        """##

    package static let conversationBody = ##"""
        {"type": "object", "properties": {
          "title": {"type": "string", "minLength": 1, "maxLength": 120, "pattern": "\\S"},
          "persona": {"type": "string", "enum": ["general", "writing_coach", "swift_reviewer", "translator", "concise", "custom"]},
          "instructions": {"type": "string", "maxLength": 4000},
          "temperature": {"type": "number", "minimum": 0, "maximum": 2},
          "language": {"type": "string", "enum": ["", "en", "fr", "de", "es", "it", "pt", "nl", "ja", "zh", "ko"]}}}
        """##

    /// An image file, as the body of an upload and of its download.
    package static let imageBody = ##"{"type": "string", "format": "binary"}"##
    package static let imageMediaTypes = ["image/png", "image/jpeg"]

    package static let generateImageBody = ##"""
        {"type": "object", "required": ["prompt"], "properties": {
          "prompt": {"type": "string", "minLength": 1, "maxLength": 1000},
          "size": {"type": "string", "description": "One of the sizes /api/me lists under images.sizes."}}}
        """##

    /// `components.parameters` entries.
    package static var parameters: [String: Any] {
        [
            "conversation_id": [
                "name": "conversation_id", "in": "path", "required": true,
                "description": "An assistant conversation's id.",
                "schema": ["type": "string", "pattern": idPattern],
            ],
            "image_id": [
                "name": "image_id", "in": "path", "required": true,
                "description": "An image's id, in its conversation.",
                "schema": ["type": "string", "pattern": idPattern],
            ],
        ]
    }

    /// `components.schemas` entries.
    package static var schemas: [String: Any] {
        guard let value = try? JSONSerialization.jsonObject(with: Data(schemasJSON.utf8)) as? [String: Any] else {
            preconditionFailure("AssistantOpenAPI.schemasJSON is not a JSON object")
        }
        return value
    }

    private static let schemasJSON = ##"""
        {
          "AssistantConversation": {"type": "object",
            "required": ["id", "owner", "title", "persona", "instructions", "temperature", "created_at", "updated_at", "opened_at"],
            "properties": {"id": {"type": "string"}, "owner": {"type": "string"}, "title": {"type": "string"},
              "persona": {"type": "string"}, "instructions": {"type": "string"}, "temperature": {"type": "number"},
              "language": {"type": "string"}, "created_at": {"type": "string"}, "updated_at": {"type": "string"},
              "opened_at": {"type": "string"}}},
          "AssistantMessage": {"type": "object", "required": ["id", "conversation_id", "role", "text", "stopped", "created_at", "images"],
            "properties": {"id": {"type": "string"}, "conversation_id": {"type": "string"},
              "role": {"type": "string", "enum": ["user", "assistant", "divider"]}, "text": {"type": "string"},
              "html": {"type": "string", "description": "Answers and dividers: the Markdown as sanitized HTML."},
              "input_tokens": {"type": "integer"}, "output_tokens": {"type": "integer"}, "model": {"type": "string"},
              "stopped": {"type": "boolean"}, "created_at": {"type": "string"}, "summary": {"type": "boolean"},
              "images": {"type": "array", "items": {"$ref": "#/components/schemas/AssistantImage"}}}},
          "AssistantImage": {"type": "object", "required": ["id", "mime_type", "byte_count"],
            "properties": {"id": {"type": "string"}, "mime_type": {"type": "string", "enum": ["image/png", "image/jpeg"]},
              "byte_count": {"type": "integer"},
              "generated_by": {"type": "string", "description": "The image model that made it; absent on your own files."}}},
          "AssistantContext": {"type": "object", "required": ["used", "size"],
            "properties": {"used": {"type": "integer"}, "size": {"type": "integer"}}},
          "AssistantTurn": {"type": "object", "required": ["id", "kind", "status", "text", "html", "output_tokens"],
            "properties": {"id": {"type": "string"}, "kind": {"type": "string", "enum": ["answer", "continuation", "summary"]},
              "status": {"type": "string", "enum": ["streaming", "done", "stopped", "failed"]},
              "text": {"type": "string"}, "html": {"type": "string"}, "output_tokens": {"type": "integer"},
              "input_tokens": {"type": "integer"}, "cached_tokens": {"type": "integer"},
              "error": {"type": "string"}, "error_code": {"type": "string"},
              "message": {"$ref": "#/components/schemas/AssistantMessage"}}},
          "AssistantSettings": {"type": "object", "required": ["stream_responses", "show_token_counts", "response_language", "appearance"],
            "properties": {"stream_responses": {"type": "boolean"}, "show_token_counts": {"type": "boolean"},
              "response_language": {"type": "string"}, "appearance": {"type": "string"}}},
          "AssistantState": {"type": "object", "required": ["model", "personas", "languages", "settings"],
            "properties": {"model": {"$ref": "#/components/schemas/ModelState"},
              "personas": {"type": "array", "items": {"type": "object"}},
              "languages": {"type": "array", "items": {"type": "object"}},
              "settings": {"$ref": "#/components/schemas/AssistantSettings"},
              "last_conversation_id": {"type": "string"}, "context_size": {"type": "integer"},
              "max_image_bytes": {"type": "integer", "description": "The largest image a conversation takes."}}},
          "AssistantConversationList": {"type": "object", "required": ["conversations"],
            "properties": {"conversations": {"type": "array", "items": {"$ref": "#/components/schemas/AssistantConversation"}}}},
          "AssistantConversationDetail": {"type": "object", "required": ["conversation", "messages", "answering"],
            "properties": {"conversation": {"$ref": "#/components/schemas/AssistantConversation"},
              "messages": {"type": "array", "items": {"$ref": "#/components/schemas/AssistantMessage"}},
              "context": {"$ref": "#/components/schemas/AssistantContext"}, "answering": {"type": "boolean"},
              "pending_images": {"type": "array", "description": "Images attached and not sent yet.",
                "items": {"$ref": "#/components/schemas/AssistantImage"}}}},
          "AssistantSettingsChange": {"type": "object", "required": ["conversation"],
            "properties": {"conversation": {"$ref": "#/components/schemas/AssistantConversation"},
              "divider": {"$ref": "#/components/schemas/AssistantMessage"}}},
          "AssistantTurnStarted": {"type": "object", "required": ["turn"],
            "properties": {"message": {"$ref": "#/components/schemas/AssistantMessage"},
              "turn": {"$ref": "#/components/schemas/AssistantTurn"}}},
          "AssistantStopped": {"type": "object", "required": ["stopped", "conversation"],
            "properties": {"stopped": {"type": "boolean"},
              "conversation": {"$ref": "#/components/schemas/AssistantConversationDetail"}}},
          "AssistantSearchResults": {"type": "object", "required": ["results"],
            "properties": {"results": {"type": "array", "items": {"type": "object",
              "required": ["message", "conversation_title", "highlights"],
              "properties": {"message": {"$ref": "#/components/schemas/AssistantMessage"},
                "conversation_title": {"type": "string"},
                "highlights": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}}}}}}
        }
        """##
}
