import Foundation

extension Transcript {
    /// An attachment segment: an image, with an optional label the model and the app can refer
    /// to it by (27 SDK).
    public struct AttachmentSegment: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        public var content: Attachment
        public var label: String?

        public init(id: String = UUID().uuidString, content: Attachment, label: String? = nil) {
            self.id = id
            self.content = content
            self.label = label
        }

        public var description: String {
            let name = label.map { " \"\($0)\"" } ?? ""
            switch content {
            case .image(let image): return "[Image\(name): \(image.sourceDescription)]"
            }
        }
    }

    /// What an attachment holds (27 SDK: images only).
    public enum Attachment: Sendable, Equatable {
        case image(ImageAttachment)
    }

    /// An image in a transcript.
    ///
    /// On Linux an image is a file (`init(imageURL:)`) or encoded PNG or JPEG data
    /// (`init(imageData:)`, Sotto's own), and ``cgImage`` is the ``CGImage`` stand-in that holds
    /// it. Apple's `CIImage` and `CVPixelBuffer` initializers and accessors have no counterpart:
    /// those types do not exist here. The image is read when a model needs it; a file that is not
    /// a PNG or JPEG image, is too large or is corrupt makes the request fail with
    /// ``LanguageModelError/unsupportedTranscriptContent(_:)``.
    public struct ImageAttachment: Sendable, Equatable {
        package enum Source: Sendable, Equatable {
            case file(URL)
            case data(Data)
        }

        package let source: Source

        /// How the image is turned (EXIF orientation): the engine rotates it upright before it
        /// reads it.
        public let orientation: CGImagePropertyOrientation

        /// The image in the file at `imageURL` (read when a model needs it).
        public init(imageURL: URL, orientation: CGImagePropertyOrientation? = nil) {
            source = .file(imageURL)
            self.orientation = orientation ?? .up
        }

        /// The image encoded in `imageData` (PNG or JPEG; Sotto's own initializer).
        public init(imageData: Data, orientation: CGImagePropertyOrientation? = nil) {
            source = .data(imageData)
            self.orientation = orientation ?? .up
        }

        /// The image (from ``CGImage/init(data:)`` or ``CGImage/init(contentsOf:)``).
        public init(_ image: CGImage, orientation: CGImagePropertyOrientation? = nil) {
            source = image.source
            self.orientation = orientation ?? .up
        }

        /// The image, as the ``CGImage`` stand-in (encoded, not decoded).
        public var cgImage: CGImage { CGImage(source: source) }

        /// The file the image comes from, if it comes from one.
        public var url: URL? {
            if case .file(let url) = source { return url }
            return nil
        }

        /// The encoded image, if it was given as data (Sotto's own).
        public var data: Data? {
            if case .data(let data) = source { return data }
            return nil
        }

        /// The largest image file a model reads: 20 MB.
        public static let maximumByteCount = 20 * 1024 * 1024

        /// The encoded bytes: the data, or the file's contents.
        ///
        /// - Throws: ``LanguageModelError/unsupportedTranscriptContent(_:)`` when the file cannot
        ///   be read or is larger than ``maximumByteCount``.
        package func encodedBytes() throws -> Data {
            switch source {
            case .data(let data):
                guard data.count <= Self.maximumByteCount else { throw Self.tooLarge(data.count, "The image data") }
                return data
            case .file(let url):
                guard url.isFileURL else {
                    throw Self.unreadable("\(url) is not a file URL; only local image files can be attached")
                }
                let attributes: [FileAttributeKey: Any]
                do {
                    attributes = try FileManager.default.attributesOfItem(atPath: url.path)
                } catch {
                    throw Self.unreadable("The image file \(url.path) cannot be read: \(error.localizedDescription)")
                }
                if let type = attributes[.type] as? FileAttributeType, type != .typeRegular {
                    throw Self.unreadable("\(url.path) is not a regular file")
                }
                let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
                guard size <= Self.maximumByteCount else { throw Self.tooLarge(size, "The image file \(url.path)") }
                do {
                    return try Data(contentsOf: url)
                } catch {
                    throw Self.unreadable("The image file \(url.path) cannot be read: \(error.localizedDescription)")
                }
            }
        }

        /// The same image, as data (for sending it to another process).
        package func withEncodedBytes() throws -> ImageAttachment {
            ImageAttachment(imageData: try encodedBytes(), orientation: orientation)
        }

        var sourceDescription: String {
            switch source {
            case .file(let url): url.lastPathComponent
            case .data(let data): "\(data.count) bytes"
            }
        }

        private static func tooLarge(_ size: Int, _ what: String) -> LanguageModelError {
            unreadable(
                "\(what) is \(ByteCountFormatter.string(fromByteCount: Int64(size), countStyle: .file)); "
                    + "images up to \(maximumByteCount / (1024 * 1024)) MB can be attached")
        }

        private static func unreadable(_ description: String) -> LanguageModelError {
            .unsupportedTranscriptContent(.init(unsupportedContent: [], debugDescription: description))
        }
    }
}

/// How an image is turned, as EXIF numbers it (1 = upright). The ImageIO type of the same name,
/// which Apple's framework takes, does not exist on Linux; this one has its cases and values.
public enum CGImagePropertyOrientation: UInt32, Sendable, Equatable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8
}

/// What an ``Attachment`` can hold (27 SDK).
public protocol AttachmentContent {}

/// The content of an image attachment (27 SDK).
public struct ImageAttachmentContent: AttachmentContent, Sendable, Equatable {
    package let image: Transcript.ImageAttachment
}

/// Something attached to a prompt: an image the model reads (27 SDK).
///
/// ```swift
/// let response = try await session.respond {
///     "What does this error message say?"
///     Attachment(imageURL: screenshotURL)
/// }
/// ```
public struct Attachment<Content: AttachmentContent> {
    package let content: Content
    package let attachmentLabel: String?

    package init(content: Content, label: String?) {
        self.content = content
        self.attachmentLabel = label
    }

    /// The same attachment with a label the model can refer to it by.
    public func label(_ label: String) -> Attachment<Content> {
        Attachment(content: content, label: label)
    }
}

extension Attachment: Sendable where Content: Sendable {}

extension Attachment where Content == ImageAttachmentContent {
    /// The image in the file at `imageURL`: a PNG or JPEG file (read when the model needs it).
    public init(imageURL: URL, orientation: CGImagePropertyOrientation? = nil) {
        self.init(
            content: ImageAttachmentContent(image: .init(imageURL: imageURL, orientation: orientation)), label: nil)
    }

    /// The image, as apps attach a Core Graphics image (here the ``CGImage`` stand-in, made from
    /// encoded PNG or JPEG data or a file).
    public init(_ image: CGImage, orientation: CGImagePropertyOrientation? = nil) {
        self.init(content: ImageAttachmentContent(image: .init(image, orientation: orientation)), label: nil)
    }

    /// The image encoded in `imageData`: PNG or JPEG (Sotto's own initializer; Apple's take a
    /// `CGImage`, `CIImage` or `CVPixelBuffer`, which Linux does not have).
    public init(imageData: Data, orientation: CGImagePropertyOrientation? = nil) {
        self.init(
            content: ImageAttachmentContent(image: .init(imageData: imageData, orientation: orientation)), label: nil)
    }

    var segment: Transcript.Segment {
        .attachment(Transcript.AttachmentSegment(content: .image(content.image), label: attachmentLabel))
    }
}

extension Attachment: PromptRepresentable, InstructionsRepresentable where Content == ImageAttachmentContent {
    public var promptRepresentation: Prompt { return Prompt(segments: [segment]) }

    public var instructionsRepresentation: Instructions { return Instructions(segments: [segment]) }
}
