import Digests
import Foundation
import FoundationModels
import Synchronization

/// Turns the images of a transcript into what the local models read instead: the text in the
/// image (Tesseract) and what kind of image it is (from measured properties), as
/// `[Image context: a screenshot (1280×720) with the text: "…"]`. The local models cannot see;
/// this is the "vision" they declare, as an iOS app would describe an image with Vision.
///
/// Results are kept by the image's SHA-256 (a transcript carries its images into every later
/// request, and the prompt must read the same each time for the KV cache to serve it).
package enum ImageReader {
    /// The most characters of an image's text given to the model.
    package static let maximumTextLength = 2000

    private static let cache = Mutex<[String: String]>([:])
    private static let cacheCapacity = 32

    /// The context of every image in `transcript`, by attachment segment id.
    ///
    /// - Throws: ``LanguageModelError/unsupportedTranscriptContent(_:)`` (naming the entry) for
    ///   an image that is not a PNG or JPEG, too large, corrupt, or cannot be read.
    package static func contexts(for transcript: Transcript) async throws -> ImageContexts {
        var texts: [String: String] = [:]
        for entry in transcript {
            for case .attachment(let attachment) in entry.segments {
                guard case .image(let image) = attachment.content else { continue }
                do {
                    texts[attachment.id] = try await context(of: image, label: attachment.label)
                } catch let error as ImageReadingError {
                    let name = attachment.label.map { "The image \"\($0)\"" } ?? "An attached image"
                    let source = image.url.map { " (\($0.path))" } ?? ""
                    throw LanguageModelError.unsupportedTranscriptContent(
                        .init(unsupportedContent: [entry], debugDescription: "\(name)\(source) \(error)"))
                }
            }
        }
        return ImageContexts(texts)
    }

    /// The context of one image. Reading, hashing, decoding and OCR all block: they run on the
    /// recognizer's thread.
    package static func context(of image: Transcript.ImageAttachment, label: String?) async throws -> String {
        try await TextRecognizer.shared.run { recognizer in try context(of: image, label: label, with: recognizer) }
    }

    private static func context(of image: Transcript.ImageAttachment, label: String?, with recognizer: TextRecognizer)
        throws -> String
    {
        let bytes = try image.encodedBytes()
        var digest = SHA256()
        bytes.withUnsafeBytes { digest.update($0) }
        let key = digest.finalize() + "/\(image.orientation.rawValue)/" + (label ?? "")
        if let known = cache.withLock({ $0[key] }) { return known }
        let decoded = try DecodedImage(bytes: bytes, orientation: image.orientation)
        let recognition = try recognizer.recognizeNow(decoded)
        let properties = decoded.properties(wordBoxes: recognition.wordBoxes)
        let context = describe(properties, text: recognition.text, label: label)
        cache.withLock { cache in
            if cache.count >= cacheCapacity { cache.removeAll() }
            cache[key] = context
        }
        return context
    }

    /// The context text for an image with these properties and this text.
    package static func describe(_ properties: ImageProperties, text: String, label: String?) -> String {
        let name = label.map { "\"\($0)\", " } ?? ""
        let shape = "a \(properties.kind.rawValue) (\(properties.width)×\(properties.height))"
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard !lines.isEmpty else { return "[Image context: \(name)\(shape), with no text in it]" }
        var joined = lines.joined(separator: "\n")
        if joined.count > maximumTextLength { joined = String(joined.prefix(maximumTextLength)) + "…" }
        return "[Image context: \(name)\(shape) with the text: \"\(joined)\"]"
    }
}
