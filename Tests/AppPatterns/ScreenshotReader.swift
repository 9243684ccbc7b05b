import Foundation
import FoundationModels

/// Reads screenshots: an app's helper that takes a Core Graphics image, as on Apple's
/// platforms. On Linux the `CGImage` comes from `CGImage(contentsOf:)` or `CGImage(data:)`
/// (the one line a ported app changes); this code is the same on both.
public struct ScreenshotReader {
    private let model: any LanguageModel

    public init(model: any LanguageModel = SystemLanguageModel.default) {
        self.model = model
    }

    /// What `image` says, in a sentence.
    public func summary(of image: CGImage, question: String = "What does this screenshot say?") async throws -> String {
        guard image.width > 0, image.height > 0 else { throw ReaderError.emptyImage }
        let session = LanguageModelSession(model: model, instructions: "You read screenshots. Be brief.")
        let response = try await session.respond(options: GenerationOptions(samplingMode: .greedy)) {
            question
            Attachment(image).label("screenshot")
        }
        return response.content
    }

    public enum ReaderError: Error, LocalizedError {
        case emptyImage

        public var errorDescription: String? {
            String(localized: "The screenshot has no pixels.")
        }
    }
}
