import ChatStore
import Foundation
import HTTPCore
import ServerKit

/// Editing and deleting messages, their edit history, and reactions: `/api/messages/{message_id}`
/// and below. Every route answers 404 for a message in a channel the caller is not in, as for
/// one that does not exist; the changes reach the channel's members as `message.updated` and
/// `message.deleted` events.
struct MessageChangesAPI: Sendable {
    let store: ChatStore
    /// Called after an edit or a deletion: suggestions drawn from the old text are redrafted.
    var changed: @Sendable (Message) async -> Void = { _ in }

    func add(to routes: inout RouteList) {
        let messageAnswer =
            ##"{"type": "object", "required": ["message"], "properties": {"message": {"$ref": "#/components/schemas/Message"}}}"##
        routes.add(
            "PATCH", "/api/messages/{message_id}",
            APIOperation(
                id: "editMessage",
                summary:
                    "Edit your own message. It is marked edited (edited_at); the text it had is kept for you and administrators.",
                body:
                    ##"{"type": "object", "required": ["text"], "properties": {"text": {"type": "string", "minLength": 1, "maxLength": 4000}}}"##,
                answers: [.init(200, "The message as it now is.", messageAnswer)], errors: [403, 404, 409])
        ) { context in
            let body = try JSONBody.decode(EditMessageRequest.self, from: context.request)
            let message = try await store.editMessage(
                try Self.messageID(context), text: body.text, by: context.authenticatedUser)
            await changed(message)
            return JSONBody.response(MessageResponse(message: message))
        }
        routes.add(
            "DELETE", "/api/messages/{message_id}",
            APIOperation(
                id: "deleteMessage",
                summary:
                    "Delete your own message (administrators: any). It stays as a tombstone, 'message deleted'; its text leaves storage, its edits and the search index.",
                answers: [.init(200, "The tombstone.", messageAnswer)], errors: [403, 404])
        ) { context in
            let user = context.authenticatedUser
            let admin = try await store.isAdministrator(context.claims!)
            let message = try await store.deleteMessage(try Self.messageID(context), by: user, asAdministrator: admin)
            await changed(message)
            return JSONBody.response(MessageResponse(message: message))
        }
        routes.add(
            "GET", "/api/messages/{message_id}/edits",
            APIOperation(
                id: "messageEdits",
                summary: "The texts your message had before each edit, oldest first (administrators: any message's).",
                answers: [
                    .init(
                        200, "The edits.",
                        ##"{"type": "object", "required": ["edits"], "properties": {"edits": {"type": "array", "items": {"$ref": "#/components/schemas/MessageEdit"}}}}"##
                    )
                ], errors: [403, 404])
        ) { context in
            let admin = try await store.isAdministrator(context.claims!)
            let edits = try await store.messageEdits(
                try Self.messageID(context), for: context.authenticatedUser, asAdministrator: admin)
            return JSONBody.response(EditsResponse(edits: edits))
        }
        for (method, adding) in [("PUT", true), ("DELETE", false)] {
            routes.add(
                method, "/api/messages/{message_id}/reactions/{emoji}",
                APIOperation(
                    id: adding ? "addReaction" : "removeReaction",
                    summary: adding
                        ? "React to a message with one emoji (percent-encoded in the path); again changes nothing."
                        : "Take back your reaction.",
                    answers: [.init(200, "The message with its reactions.", messageAnswer)], errors: [404, 409])
            ) { context in
                let message = try await store.react(
                    context.parameter("emoji"), to: try Self.messageID(context), by: context.authenticatedUser,
                    adding: adding)
                return JSONBody.response(MessageResponse(message: message))
            }
        }
    }

    private static func messageID(_ context: RequestContext) throws -> MessageID {
        try MessageID.validated(context.parameter("message_id"), field: "message_id")
    }
}

struct EditMessageRequest: Decodable {
    var text: String
}

struct MessageResponse: Encodable {
    var message: Message
}

struct EditsResponse: Encodable {
    var edits: [MessageEdit]
}
