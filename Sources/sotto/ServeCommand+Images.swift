import AssistantServer
import Foundation
import OpenAIModel
import Server

/// Image Playground's stand-in in `sotto serve`: Sotto has no image model, so images are made
/// only by an OpenAI-compatible `/v1/images/generations` endpoint someone configures, and the
/// web app names that model beside each image. Off unless `--image-url` is given.
extension ServeCommand {
    static let imageUsage = """
          --image-url URL     an OpenAI-compatible API (ending in /v1) whose /images/generations
                              makes images for the assistant's image button. Off by default; when
                              set, the prompt a user writes for an image is sent there
          --image-model M     the image model's name at that endpoint (required with --image-url)
          --image-key-file PATH  a file holding its API key (default: $SOTTO_IMAGE_KEY, else none)
        """

    /// The image generation the arguments configure, and a line for the start-up summary.
    static func imageGeneration(_ arguments: Arguments) throws -> (ImageGeneration?, String) {
        guard
            let endpoint = try configuredEndpoint(
                arguments, option: "image", keyVariable: "SOTTO_IMAGE_KEY", name: "the image server")
        else { return (nil, "off (no image model of its own; --image-url configures one)") }
        let generator = OpenAIImageGenerator(endpoint: endpoint)
        let generation = ImageGeneration(model: endpoint.model, sizes: OpenAIImageGenerator.sizes) {
            prompt, size in
            let image = try await generator.generate(prompt: prompt, size: size)
            return (image.bytes, image.mimeType)
        }
        return (
            generation,
            "\(endpoint.model) at \(endpoint.displayURL): image prompts written in the assistant are sent there"
        )
    }
}
