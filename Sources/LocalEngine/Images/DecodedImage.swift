import CTesseract
import Foundation
import FoundationModels

/// An image decoded by Leptonica from PNG or JPEG bytes, upright, as 32-bit RGBA pixels. Owns
/// its `PIX` (freed on release).
// @unchecked Sendable: the pixels are written once, in init, and only read afterwards (by the
// OCR queue, then by the measurements, one after the other).
final class DecodedImage: @unchecked Sendable {
    let pix: UnsafeMutablePointer<PIX>
    let width: Int
    let height: Int

    /// The largest image read: 50 megapixels (a photo from a phone is 12–48).
    static let maximumPixelCount = 50_000_000

    /// Decodes `bytes`.
    ///
    /// - Throws: ``ImageReadingError`` when the bytes are not a PNG or JPEG image, the image
    ///   is too large, or it cannot be decoded.
    init(bytes: Data, orientation: CGImagePropertyOrientation) throws(ImageReadingError) {
        Self.silenceLeptonica
        guard let format = ImageFormat(magic: bytes) else {
            throw .notAnImage(leadingBytes: Array(bytes.prefix(8)))
        }
        var (fileFormat, width, height, bitsPerSample, samples, colormap): (Int32, Int32, Int32, Int32, Int32, Int32) =
            (0, 0, 0, 0, 0, 0)
        let header = bytes.withUnsafeBytes { buffer in
            pixReadHeaderMem(
                buffer.bindMemory(to: UInt8.self).baseAddress, buffer.count, &fileFormat, &width, &height,
                &bitsPerSample, &samples, &colormap)
        }
        guard header == 0, width > 0, height > 0 else { throw .corrupt(format) }
        guard Int(width) * Int(height) <= Self.maximumPixelCount else {
            throw .tooManyPixels(width: Int(width), height: Int(height))
        }
        let decoded = bytes.withUnsafeBytes { buffer in
            pixReadMem(buffer.bindMemory(to: UInt8.self).baseAddress, buffer.count)
        }
        var owned: UnsafeMutablePointer<PIX>? = decoded
        defer { pixDestroy(&owned) }
        guard let decoded else { throw .corrupt(format) }
        var rgba: UnsafeMutablePointer<PIX>? = pixConvertTo32(decoded)
        guard let converted = rgba else { throw .corrupt(format) }
        var result = converted
        if let upright = Self.upright(converted, orientation) {
            pixDestroy(&rgba)
            result = upright
        }
        pix = result
        self.width = Int(pixGetWidth(result))
        self.height = Int(pixGetHeight(result))
    }

    deinit {
        var pix: UnsafeMutablePointer<PIX>? = self.pix
        pixDestroy(&pix)
    }

    /// The pixel at (x, y): red, green, blue (Leptonica packs RGBA big end first).
    func rgb(x: Int, y: Int, data: UnsafeMutablePointer<UInt32>, wordsPerLine: Int) -> (Int, Int, Int) {
        let word = data[y * wordsPerLine + x]
        return (Int(word >> 24), Int(word >> 16 & 0xFF), Int(word >> 8 & 0xFF))
    }

    /// Leptonica prints its errors to stderr; a bad image is reported by the engine instead.
    private static let silenceLeptonica: Void = {
        _ = setMsgSeverity(Int32(L_SEVERITY_NONE))
    }()

    /// The image turned upright for an EXIF orientation; nil when it already is.
    private static func upright(
        _ pix: UnsafeMutablePointer<PIX>, _ orientation: CGImagePropertyOrientation
    ) -> UnsafeMutablePointer<PIX>? {
        switch orientation {
        case .up: return nil
        case .upMirrored: return pixFlipLR(nil, pix)
        case .down: return pixRotateOrth(pix, 2)
        case .downMirrored: return pixFlipTB(nil, pix)
        case .right: return pixRotateOrth(pix, 1)
        case .left: return pixRotateOrth(pix, 3)
        case .rightMirrored: return turnedAndFlipped(pix, quarterTurns: 1)
        case .leftMirrored: return turnedAndFlipped(pix, quarterTurns: 3)
        }
    }

    private static func turnedAndFlipped(_ pix: UnsafeMutablePointer<PIX>, quarterTurns: Int32) -> UnsafeMutablePointer<
        PIX
    >? {
        var turned: UnsafeMutablePointer<PIX>? = pixRotateOrth(pix, quarterTurns)
        defer { pixDestroy(&turned) }
        return turned.flatMap { pixFlipLR(nil, $0) }
    }
}

/// The image formats the engine reads.
enum ImageFormat: String, Sendable {
    case png = "PNG"
    case jpeg = "JPEG"

    /// The format `bytes` start like, if either.
    init?(magic bytes: Data) {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else {
            return nil
        }
    }
}

/// Why an image could not be read.
enum ImageReadingError: Error, CustomStringConvertible {
    case notAnImage(leadingBytes: [UInt8])
    case tooManyPixels(width: Int, height: Int)
    case corrupt(ImageFormat)
    case recognizerUnavailable(String)

    var description: String {
        switch self {
        case .notAnImage(let bytes):
            let hex = bytes.map { String(format: "%02x", $0) }.joined(separator: " ")
            let guess = Self.guess(bytes).map { " (it looks like \($0))" } ?? ""
            return "is not a PNG or JPEG image: it starts with the bytes \(hex)\(guess)"
        case .tooManyPixels(let width, let height):
            return
                "is \(width)×\(height) pixels; images up to \(DecodedImage.maximumPixelCount / 1_000_000) megapixels are read"
        case .corrupt(let format):
            return "is a damaged \(format.rawValue) image: it could not be decoded"
        case .recognizerUnavailable(let reason):
            return "cannot be read: \(reason)"
        }
    }

    private static func guess(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("%PDF") { return "a PDF document" }
        if text.hasPrefix("GIF8") { return "a GIF image" }
        if text.hasPrefix("RIFF") { return "a RIFF file such as WebP" }
        if bytes.starts(with: [0x42, 0x4D]) { return "a BMP image" }
        if bytes.allSatisfy({ $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || (0x20..<0x7F).contains($0) }) {
            return "text"
        }
        return nil
    }
}
