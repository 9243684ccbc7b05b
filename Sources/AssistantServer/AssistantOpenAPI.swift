import ChatStore
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

    /// Adds the schemas of what the assistant's routes answer with, generated from their types
    /// (``WireSchemas``). `ModelState` is the chat's, named by the caller.
    package static func register(_ schemas: inout WireSchemas) throws {
        schemas.inline(AssistantTurnView.Kind.self)
        schemas.inline(AssistantTurnView.Status.self)
        // The store's types have no public memberwise initializers: the examples are read as a
        // client would send them back.
        let conversation = try JSONDecoder().decode(
            AssistantConversation.self,
            from: Data(
                #"""
                {"id": "c1", "owner": "ada", "title": "Trip", "persona": "general", "instructions": "Be brief.",
                 "temperature": 0.7, "language": "fr", "created_at": "2026-01-01T10:00:00Z",
                 "updated_at": "2026-01-01T10:00:00Z", "opened_at": "2026-01-01T10:00:00Z"}
                """#.utf8))
        let image = AssistantImage(id: "i1", mimeType: "image/png", bytes: [1], generatedBy: "flux").info
        let stored = try JSONDecoder().decode(
            AssistantMessage.self,
            from: Data(
                #"""
                {"id": "m1", "conversation_id": "c1", "role": "divider", "text": "Summary of the conversation so far: x",
                 "input_tokens": 9, "output_tokens": 3, "model": "qwen", "stopped": false,
                 "created_at": "2026-01-01T10:00:00Z", "images": []}
                """#.utf8))
        var message = AssistantMessageView(stored)
        message.images = [image]
        message.html = "<p>x</p>"
        var turn = AssistantTurnView(
            id: "t1", kind: .answer, status: .done, text: "Hi", html: "<p>Hi</p>", output_tokens: 1)
        (turn.input_tokens, turn.cached_tokens, turn.error, turn.error_code) = (5, 2, "none", "none")
        turn.message = message
        let settings = AssistantAPI.SettingsView(
            stream_responses: true, show_token_counts: false, response_language: "", appearance: "system")
        let detail = AssistantAPI.ConversationDetail(
            conversation: conversation, messages: [message], context: AssistantContext(used: 10, size: 4096),
            answering: false, pending_images: [image])
        let languages = ["", "en", "fr", "de", "es", "it", "pt", "nl", "ja", "zh", "ko"]

        schemas.add("AssistantConversation", example: conversation)
        schemas.add(
            "AssistantMessage", example: message,
            notes: [
                "role": ["enum": ["user", "assistant", "divider"]],
                "html": ["description": "Answers and dividers: the Markdown as sanitized HTML."],
                "summary": ["description": "Dividers: the new session starts from a summary of the conversation."],
            ])
        schemas.add(
            "AssistantImage", example: image,
            notes: [
                "mime_type": ["enum": imageMediaTypes],
                "generated_by": ["description": "The image model that made it; absent on your own files."],
            ])
        schemas.add("AssistantContext", example: AssistantContext(used: 10, size: 4096))
        schemas.add("AssistantTurn", example: turn)
        schemas.add(
            "AssistantSettings", example: settings,
            notes: ["response_language": ["enum": languages], "appearance": ["enum": ["system", "light", "dark"]]])
        schemas.add(
            "AssistantState",
            example: AssistantAPI.AssistantState(
                model: ModelState(.none), personas: [AssistantPersona.presets[0]],
                languages: [AssistantLanguage.all[0]],
                settings: settings, last_conversation_id: "c1", context_size: 4096, model_loading: false,
                max_image_bytes: 8 << 20),
            notes: ["max_image_bytes": ["description": "The largest image a conversation takes."]])
        schemas.add("AssistantConversationList", example: AssistantAPI.ConversationList(conversations: [conversation]))
        schemas.add(
            "AssistantConversationDetail", example: detail,
            notes: ["pending_images": ["description": "Images attached and not sent yet."]])
        schemas.add(
            "AssistantSettingsChange",
            example: AssistantAPI.SettingsChange(conversation: conversation, divider: message))
        schemas.add("AssistantTurnStarted", example: AssistantAPI.TurnStarted(message: message, turn: turn))
        schemas.add("AssistantStopped", example: AssistantAPI.Stopped(stopped: true, conversation: detail))
        let hit = try JSONDecoder().decode(
            AssistantSearchHit.self,
            from: Data(
                #"""
                {"message": {"id": "m1", "conversation_id": "c1", "role": "user", "text": "trip", "stopped": false,
                 "created_at": "2026-01-01T10:00:00Z", "images": []},
                 "conversation_title": "Trip", "score": 1, "highlights": [[0, 4]]}
                """#.utf8))
        schemas.add(
            "AssistantSearchResults",
            example: AssistantAPI.SearchResults(results: [AssistantAPI.SearchResultView(hit)]),
            notes: [
                "results[].highlights": ["description": "Matched words as [start, end) UTF-16 offsets in the text."]
            ])
    }
}
