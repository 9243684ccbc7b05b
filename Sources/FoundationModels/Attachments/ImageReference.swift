/// A reference to an image in a session's transcript, by the label it was attached with (27
/// SDK): the model generates it, as a tool's argument say, and the tool finds the image.
///
/// ```swift
/// struct CropTool: Tool {
///     @SessionProperty(\.history) var history
///
///     @Generable
///     struct Arguments {
///         var image: ImageReference
///     }
///
///     func call(arguments: Arguments) async throws -> String {
///         guard let image = arguments.image.resolved(in: history) else { return "No such image." }
///         …
///     }
/// }
/// ```
public struct ImageReference: Generable, Sendable, Equatable {
    /// The label of the referenced image.
    public let attachmentLabel: String

    /// A reference to the image attached with `attachmentLabel`.
    public init(attachmentLabel: String) {
        self.attachmentLabel = attachmentLabel
    }

    /// The image with this reference's label in `transcript`: from the latest entry when
    /// several share it; nil when none has it.
    public func resolved(in transcript: some Sequence<Transcript.Entry>) -> Transcript.ImageAttachment? {
        var found: Transcript.ImageAttachment?
        for entry in transcript {
            for segment in entry.segments {
                guard case .attachment(let attachment) = segment, attachment.label == attachmentLabel,
                    case .image(let image) = attachment.content
                else { continue }
                found = image
            }
        }
        return found
    }

    public nonisolated static var generationSchema: GenerationSchema {
        GenerationSchema(
            type: Self.self, description: "A reference to an image in the conversation, by its label",
            properties: [
                GenerationSchema.Property(
                    name: "attachmentLabel", description: "The label the image was attached with", type: String.self)
            ])
    }

    public nonisolated init(_ content: GeneratedContent) throws {
        attachmentLabel = try content.value(forProperty: "attachmentLabel")
    }

    public nonisolated var generatedContent: GeneratedContent {
        GeneratedContent(properties: ["attachmentLabel": attachmentLabel])
    }

    /// A reference as it is being generated.
    public struct PartiallyGenerated: Identifiable, ConvertibleFromGeneratedContent, Equatable, Sendable {
        public var id: GenerationID
        /// The label of the referenced image as the model generates it.
        public var attachmentLabel: String.PartiallyGenerated?

        public nonisolated init(_ content: GeneratedContent) throws {
            id = content.id ?? GenerationID()
            attachmentLabel = try content.value(forProperty: "attachmentLabel")
        }
    }
}
