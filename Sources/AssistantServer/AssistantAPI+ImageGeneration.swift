import ChatStore
import Foundation
import HTTPCore
import ServerKit

/// Images made from a prompt by the configured image model (``ImageGeneration``): each becomes a
/// waiting upload of the conversation, as if the user had attached it, naming its model.
extension AssistantAPI {
    package struct GenerateImageBody: Decodable {
        var prompt: String
        var size: String?
    }

    package func addImageGenerationRoutes(to routes: inout RouteList) {
        routes.add(
            "POST", "/api/assistant/conversations/{conversation_id}/images/generations",
            APIOperation(
                id: "generateAssistantImage",
                summary:
                    "Make an image from a prompt with the image model this server is configured with (`sotto serve --image-url`; off by default: the prompt is sent to that server). The image waits in the conversation as an attached one does, with generated_by naming the model. One at a time per user; it can take tens of seconds.",
                body: AssistantOpenAPI.generateImageBody,
                answers: [.init(201, "The image, waiting to be sent.", AssistantOpenAPI.ref("AssistantImage"))],
                errors: [404, 429, 502])
        ) { context in
            let user = context.authenticatedUser
            let id = try conversationID(context)
            guard let generation = imageGeneration else { throw Self.imagesOff() }
            let body = try JSONBody.decode(GenerateImageBody.self, from: context.request)
            let prompt = body.prompt.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !prompt.isEmpty else { throw APIError.badRequest("prompt: say what the image should show") }
            guard prompt.count <= ImageGeneration.maxPromptLength else {
                throw APIError.badRequest("prompt: at most \(ImageGeneration.maxPromptLength) characters")
            }
            if let size = body.size, !generation.sizes.contains(size) {
                throw APIError.badRequest("size must be one of: \(generation.sizes.joined(separator: ", "))")
            }
            _ = try await store.assistantConversation(id, for: user)
            guard imageGate.enter(user) else { throw Self.imageInProgress() }
            defer { imageGate.leave(user) }
            let made: (bytes: [UInt8], mimeType: String)
            do {
                made = try await generation.make(prompt, body.size)
            } catch let error as CancellationError {
                throw error
            } catch {
                throw APIError(
                    status: 502, code: "image_endpoint_failed",
                    message: "No image: \(String(describing: error).prefix(300))")
            }
            guard made.bytes.count <= maxImageBytes else { throw Self.imageTooLarge(maxImageBytes) }
            guard let type = Self.imageType(of: made.bytes) else {
                throw APIError(
                    status: 502, code: "image_endpoint_failed",
                    message: "No image: the image server sent something that is not a PNG or JPEG image.")
            }
            let info = try await store.addAssistantUpload(
                AssistantImage(mimeType: type, bytes: made.bytes, generatedBy: generation.model), to: id, for: user)
            return JSONBody.response(info, status: 201)
        }
    }

    package static func imagesOff() -> APIError {
        APIError(
            status: 404, code: "images_off",
            message:
                "This server makes no images: it has no image model of its own, and none is configured (sotto serve --image-url)."
        )
    }

    package static func imageInProgress() -> APIError {
        APIError(
            status: 429, code: "image_in_progress",
            message: "An image of yours is being made; wait for it before asking for another.", retryAfter: 5)
    }
}
