import ChatStore
import Foundation
import FoundationModels
import HTTPCore
import ServerKit

/// The assistant's images: attached to a conversation (the body is the PNG or JPEG file, up to
/// ``ChatServer/Configuration/maxImageBytes``; the HTTP core lets this one route's body pass the
/// usual limit), shown as thumbnails, and sent with a message that names them (`image_ids`),
/// whose prompt then carries them as `FoundationModels` image attachments.
extension AssistantAPI {
    package static let defaultMaxImageBytes = 8 * 1024 * 1024
    private static let conversationsPrefix = "/api/assistant/conversations/"

    /// Whether a request head is an image upload: the route whose body may be larger than the
    /// others' (decided before the body is read, so a larger one is refused with 413 at once).
    package static func isImageUpload(method: String, path: String) -> Bool {
        guard method == "POST", path.hasPrefix(conversationsPrefix), path.hasSuffix("/images") else { return false }
        let id = path.dropFirst(conversationsPrefix.count).dropLast("/images".count)
        return (try? ChatStore.validatedAssistantID(String(id))) != nil
    }

    /// The image type the first bytes say (PNG's signature, JPEG's start-of-image marker), or nil.
    package static func imageType(of bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        return nil
    }

    package static func notAnImage() -> APIError {
        APIError(status: 400, code: "not_an_image", message: "That file is not a PNG or JPEG image.")
    }

    package static func imageTooLarge(_ limit: Int) -> APIError {
        APIError(
            status: 413, code: "image_too_large",
            message: "That image is larger than \(limit / (1024 * 1024)) MB; attach a smaller one.")
    }

    package func addImageRoutes(to routes: inout RouteList) {
        let ref = AssistantOpenAPI.ref
        routes.add(
            "POST", "/api/assistant/conversations/{conversation_id}/images",
            APIOperation(
                id: "attachAssistantImage",
                summary:
                    "Attach an image to a conversation: the body is a PNG or JPEG file (up to 8 MB; its first bytes decide, not the Content-Type). It waits there until a message names it in image_ids; the model then reads the text in it (OCR) and what kind of image it is.",
                body: AssistantOpenAPI.imageBody, bodyMediaTypes: AssistantOpenAPI.imageMediaTypes,
                answers: [.init(201, "The image, waiting to be sent.", ref("AssistantImage"))], errors: [404])
        ) { context in
            let user = context.authenticatedUser
            let id = try conversationID(context)
            _ = try await store.assistantConversation(id, for: user)
            let bytes = context.request.body
            guard bytes.count <= maxImageBytes else { throw Self.imageTooLarge(maxImageBytes) }
            guard let type = Self.imageType(of: bytes) else { throw Self.notAnImage() }
            let info = try await store.addAssistantUpload(
                AssistantImage(mimeType: type, bytes: bytes), to: id, for: user)
            return JSONBody.response(info, status: 201)
        }
        routes.add(
            "GET", "/api/assistant/conversations/{conversation_id}/images/{image_id}",
            APIOperation(
                id: "assistantImage",
                summary: "An image of the conversation, sent or waiting to be, as it was attached.",
                answers: [
                    .init(
                        200, "The image file.", AssistantOpenAPI.imageBody, mediaTypes: AssistantOpenAPI.imageMediaTypes
                    )
                ], errors: [404])
        ) { context in
            let user = context.authenticatedUser
            let id = try conversationID(context)
            let image = try await store.assistantImage(try imageID(context), in: id, for: user)
            // Like every API answer, not stored by the browser (the router says no-store): the web
            // app keeps the images it shows as blob: URLs.
            return HTTPResponse(status: 200, headers: [("Content-Type", image.mimeType)], body: image.bytes)
        }
        routes.add(
            "DELETE", "/api/assistant/conversations/{conversation_id}/images/{image_id}",
            APIOperation(
                id: "removeAssistantImage",
                summary: "Remove an image that is waiting to be sent (a sent one stays with its message).",
                answers: [.init(204, "Removed.")], errors: [404])
        ) { context in
            let user = context.authenticatedUser
            let id = try conversationID(context)
            try await store.deleteAssistantUpload(try imageID(context), in: id, for: user)
            return HTTPResponse(status: 204)
        }
    }

    private func imageID(_ context: RequestContext) throws -> String {
        try Self.checkedID(context.parameter("image_id"), field: "image_id")
    }

    /// An id from outside, or a 400 naming the field.
    package static func checkedID(_ text: String, field: String) throws -> String {
        do {
            return try ChatStore.validatedAssistantID(text, field: field)
        } catch let error as ChatStoreError {
            throw APIError.badRequest(error.description)
        }
    }

    /// The images a message names, checked before anything is stored or computed.
    package func images(named ids: [String], in conversation: String, for user: UserID) async throws -> [AssistantImage]
    {
        guard ids.count <= ChatStore.maxAssistantImages else {
            throw APIError.badRequest("image_ids: at most \(ChatStore.maxAssistantImages) images on a message")
        }
        guard Set(ids).count == ids.count else { throw APIError.badRequest("image_ids: an image is named twice") }
        var images: [AssistantImage] = []
        for id in ids {
            images.append(
                try await store.assistantImage(Self.checkedID(id, field: "image_ids"), in: conversation, for: user))
        }
        return images
    }
}
