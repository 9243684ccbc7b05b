import Foundation
import FoundationModels
import TestSupport
import Testing

/// The `CGImage` stand-in: encoded PNG and JPEG images, their size read from their headers,
/// attached as Apple's `Attachment(_:)` attaches a Core Graphics image.
@Suite struct CGImageTests {
    /// A PNG's signature and IHDR chunk (960 × 540), then anything.
    static let png: Data = {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        bytes += Array("IHDR".utf8) + [0, 0, 0x03, 0xC0, 0, 0, 0x02, 0x1C, 8, 6, 0, 0, 0]
        return Data(bytes + [0, 0, 0, 0])
    }()

    /// A JPEG with an APP0 segment before its baseline frame header (640 × 480).
    static let jpeg: Data = {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]
        bytes += Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        bytes += [0xFF, 0xC0, 0x00, 0x11, 8, 0x01, 0xE0, 0x02, 0x80, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        return Data(bytes + [0xFF, 0xD9])
    }()

    @Test(.onTestThreads) func readsTheSizeOfPNGAndJPEGImages() throws {
        let png = try #require(CGImage(data: Self.png))
        #expect(png.width == 960 && png.height == 540)
        let jpeg = try #require(CGImage(data: Self.jpeg))
        #expect(jpeg.width == 640 && jpeg.height == 480)
        #expect(jpeg.encodedData == Self.jpeg)
    }

    @Test(.onTestThreads) func refusesWhatIsNotAnImage() {
        #expect(CGImage(data: Data("GIF89a".utf8)) == nil)
        #expect(CGImage(data: Data()) == nil)
        #expect(CGImage(contentsOf: URL(fileURLWithPath: "/nonexistent.png")) == nil)
        #expect(CGImage(contentsOf: URL(string: "https://example.com/a.png")!) == nil)
    }

    @Test(.onTestThreads) func aFileImageIsReadWhenAsked() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cg-\(UUID().uuidString).png")
        try Self.png.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let image = try #require(CGImage(contentsOf: url))
        #expect(image.width == 960)
        #expect(image.encodedData == Self.png)
    }

    @Test(.onTestThreads) func attachesAsAppleAttachesACoreGraphicsImage() throws {
        let image = try #require(CGImage(data: Self.png))
        let prompt = Prompt {
            "What does this say?"
            Attachment(image, orientation: .right).label("screen")
        }
        let segments = Transcript.Prompt(segments: prompt.segments).segments
        guard case .attachment(let attachment) = segments.last, case .image(let attached) = attachment.content else {
            Issue.record("no image attachment")
            return
        }
        #expect(attachment.label == "screen")
        #expect(attached.orientation == .right)
        #expect(attached.cgImage == image)
        #expect(attached.cgImage.height == 540)
    }
}
