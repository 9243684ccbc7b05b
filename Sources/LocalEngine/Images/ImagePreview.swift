import CTesseract
import Foundation
import FoundationModels

/// What a chat shows and the model reads of an image a member attached: its size, a small
/// version for the message, and its context (the text in it and what kind of image it is, as
/// ``ImageReader`` gives the model for an assistant's image).
package struct ImagePreview: Sendable {
    package var width: Int
    package var height: Int
    /// At most ``ImageReader/thumbnailSide`` pixels on its longer side, in `thumbnailType`.
    package var thumbnail: [UInt8]
    package var thumbnailType: String
    package var context: String
}

extension ImageReader {
    /// The longer side of a thumbnail, in pixels.
    package static let thumbnailSide = 320

    /// Decodes a PNG or JPEG image, reads its text and makes its thumbnail (a JPEG's as JPEG, a
    /// PNG's as PNG). All of it blocks: it runs on the recognizer's thread.
    ///
    /// - Throws: ``ImageReadingError`` (its description says why) for bytes that are not a
    ///   readable PNG or JPEG image of at most 50 megapixels.
    package static func preview(of bytes: [UInt8], label: String) async throws -> ImagePreview {
        try await TextRecognizer.shared.run { recognizer in
            let data = Data(bytes)
            let decoded = try DecodedImage(bytes: data, orientation: .up)
            let recognition = try recognizer.recognizeNow(decoded)
            let context = describe(
                decoded.properties(wordBoxes: recognition.wordBoxes), text: recognition.text, label: label)
            let format = ImageFormat(magic: data) ?? .png
            let thumbnail = try thumbnail(of: decoded, as: format)
            return ImagePreview(
                width: decoded.width, height: decoded.height, thumbnail: thumbnail,
                thumbnailType: format == .jpeg ? "image/jpeg" : "image/png", context: context)
        }
    }

    private static func thumbnail(of image: DecodedImage, as format: ImageFormat) throws -> [UInt8] {
        let scale = min(1, Float(thumbnailSide) / Float(max(image.width, image.height)))
        var scaled: UnsafeMutablePointer<PIX>? = scale < 1 ? pixScale(image.pix, scale, scale) : pixClone(image.pix)
        defer { pixDestroy(&scaled) }
        guard let scaled else { throw ImageReadingError.corrupt(format) }
        var data: UnsafeMutablePointer<UInt8>?
        var size = 0
        let written = pixWriteMem(&data, &size, scaled, format == .jpeg ? Int32(IFF_JFIF_JPEG) : Int32(IFF_PNG))
        defer { lept_free(data) }
        guard written == 0, let data, size > 0 else { throw ImageReadingError.corrupt(format) }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}
