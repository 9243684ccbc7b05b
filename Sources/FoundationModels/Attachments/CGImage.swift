import Foundation

/// An image, where Core Graphics does not exist (Linux): the stand-in for Apple's `CGImage` that
/// `Attachment(_:orientation:)` takes and `Transcript.ImageAttachment.cgImage` gives, so that
/// app code which passes images along compiles unchanged.
///
/// It holds an encoded PNG or JPEG image (a file, or its bytes), not pixels: the code that makes
/// the image is what a ported app changes, from `UIImage(named:)?.cgImage` or
/// `CGImageSourceCreateImageAtIndex` to ``init(data:)`` or ``init(contentsOf:)``. Sotto's engine
/// reads the text in an image (see `docs/Porting.md`).
///
/// ```swift
/// guard let image = CGImage(contentsOf: screenshotURL) else { return }
/// let response = try await session.respond {
///     "What does this error say?"
///     Attachment(image)
/// }
/// ```
public final class CGImage: Sendable, Hashable {
    package let source: Transcript.ImageAttachment.Source

    package init(source: Transcript.ImageAttachment.Source) {
        self.source = source
    }

    /// The image encoded in `data`; nil unless it is a PNG or JPEG image.
    public convenience init?(data: Data) {
        guard ImageHeader(data) != nil else { return nil }
        self.init(source: .data(data))
    }

    /// The image in the file at `url`; nil unless the file starts as a PNG or JPEG image does.
    public convenience init?(contentsOf url: URL) {
        guard url.isFileURL, let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: ImageHeader.bytesNeeded), ImageHeader(head) != nil else {
            return nil
        }
        self.init(source: .file(url))
    }

    /// The width in pixels (0 when the image cannot be read).
    public var width: Int { header?.width ?? 0 }

    /// The height in pixels (0 when the image cannot be read).
    public var height: Int { header?.height ?? 0 }

    /// The encoded image (PNG or JPEG), read from its file if it is in one; nil when the file
    /// cannot be read.
    public var encodedData: Data? {
        switch source {
        case .data(let data): data
        case .file(let url): try? Data(contentsOf: url)
        }
    }

    private var header: ImageHeader? {
        switch source {
        case .data(let data): return ImageHeader(data)
        case .file(let url):
            guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
            defer { try? handle.close() }
            return (try? handle.read(upToCount: ImageHeader.bytesNeeded)).flatMap { ImageHeader($0) }
        }
    }

    public static func == (lhs: CGImage, rhs: CGImage) -> Bool { lhs.source == rhs.source }

    public func hash(into hasher: inout Hasher) {
        switch source {
        case .data(let data): hasher.combine(data)
        case .file(let url): hasher.combine(url)
        }
    }
}

/// The size of a PNG or JPEG image, read from its first bytes.
struct ImageHeader {
    /// How many bytes of a file are read to find its size (a JPEG's size may follow its EXIF
    /// data, up to 64 KB in).
    static let bytesNeeded = 128 * 1024

    let width: Int
    let height: Int

    init?(_ data: Data) {
        let bytes = [UInt8](data.prefix(Self.bytesNeeded))
        if let size = Self.pngSize(bytes) ?? Self.jpegSize(bytes) {
            (width, height) = size
        } else {
            return nil
        }
    }

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }

    /// The IHDR chunk right after the signature holds the width and height.
    private static func pngSize(_ bytes: [UInt8]) -> (Int, Int)? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 24, Array(bytes[0..<8]) == signature, bytes[12..<16].elementsEqual("IHDR".utf8)
        else { return nil }
        return (bigEndian(bytes, 16, 4), bigEndian(bytes, 20, 4))
    }

    /// The first start-of-frame segment holds the height and width.
    private static func jpegSize(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF {  // fill byte
                offset += 1
                continue
            }
            if marker == 0x01 || (0xD0...0xD9).contains(marker) {  // no length
                offset += 2
                continue
            }
            let length = bigEndian(bytes, offset + 2, 2)
            let isFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isFrame {
                guard offset + 9 <= bytes.count else { return nil }
                return (bigEndian(bytes, offset + 7, 2), bigEndian(bytes, offset + 5, 2))
            }
            offset += 2 + length
        }
        return nil
    }
}
