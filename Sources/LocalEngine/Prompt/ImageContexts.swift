import FoundationModels

/// What the model reads in place of each image of a transcript: "[Image context: …]", made by
/// ``ImageReader`` (the text Tesseract reads in it, and tags from measured properties).
package struct ImageContexts: Sendable {
    private var texts: [String: String]

    /// No images.
    package init() {
        texts = [:]
    }

    /// The context text of each attachment segment, by segment id.
    package init(_ texts: [String: String]) {
        self.texts = texts
    }

    /// The segments' text, joined by newlines: structured values as JSON, images as their
    /// context.
    package func text(of segments: [Transcript.Segment]) -> String {
        segments.map { segment in
            if case .attachment(let attachment) = segment, let context = texts[attachment.id] { return context }
            return segment.description
        }.joined(separator: "\n")
    }
}
