import Foundation
import FoundationModels
import LocalEngine
import TestSupport
import Testing

/// Image attachments on the local engine: Tesseract reads the text, measured properties say
/// what kind of image it is, and the model answers from "[Image context: …]". The images are
/// rendered with Debian's DejaVu fonts by `scripts/make-image-fixtures.py` and committed.
extension EngineTests {
    enum Images {
        static func url(_ name: String) throws -> URL {
            try #require(Bundle.module.url(forResource: "Fixtures/images/\(name)", withExtension: nil))
        }
    }

    @Suite
    struct ImageAttachments {
        @Test func aScreenshotIsReadAndTaggedAsOne() async throws {
            let image = Transcript.ImageAttachment(imageURL: try Images.url("screenshot.png"))
            let context = try await ImageReader.context(of: image, label: nil)
            #expect(context.hasPrefix("[Image context: a screenshot (960×540) with the text: "))
            #expect(context.contains("The design review is now on Thursday"))
            #expect(context.contains("room Aurora"))
        }

        @Test func aPageOfTextIsADocument() async throws {
            let data = try Data(contentsOf: try Images.url("document.png"))
            let context = try await ImageReader.context(
                of: Transcript.ImageAttachment(imageData: data), label: "invoice")
            #expect(context.hasPrefix("[Image context: \"invoice\", a document (850×1100) with the text: "))
            #expect(context.contains("Total due: 2,880.00 EUR"))
        }

        @Test func aJPEGPhotoWithoutTextIsAPhoto() async throws {
            let image = Transcript.ImageAttachment(imageURL: try Images.url("photo.jpg"))
            let context = try await ImageReader.context(of: image, label: nil)
            #expect(context == "[Image context: a photo (800×600), with no text in it]")
        }

        @Test func anOrientationTurnsTheImageUprightFirst() async throws {
            // Rotated a quarter turn, the text would not be read; upright it is, and the
            // dimensions are the upright ones.
            let image = Transcript.ImageAttachment(imageURL: try Images.url("screenshot.png"), orientation: .right)
            let context = try await ImageReader.context(of: image, label: nil)
            #expect(context.contains("(540×960)"))
        }

        @Test func aFileThatIsNotAnImageIsAClearError() async throws {
            let text = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID()).txt")
            try Data("Dear diary, today I attached a text file.".utf8).write(to: text)
            defer { try? FileManager.default.removeItem(at: text) }
            let session = LanguageModelSession(model: try EngineModels.model(EngineModels.smollm))
            do {
                _ = try await session.respond {
                    "What is in this picture?"
                    Attachment(imageURL: text)
                }
                Issue.record("a text file was accepted as an image")
            } catch LanguageModelError.unsupportedTranscriptContent(let context) {
                #expect(context.debugDescription.contains(text.path))
                #expect(context.debugDescription.contains("is not a PNG or JPEG image"))
                #expect(context.debugDescription.contains("it looks like text"))
            }
            #expect(!session.isResponding)
        }

        @Test func aFileThatIsTooLargeIsAClearError() async throws {
            let big = FileManager.default.temporaryDirectory.appendingPathComponent("big-\(UUID()).png")
            #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
            let handle = try FileHandle(forWritingTo: big)
            try handle.truncate(atOffset: UInt64(Transcript.ImageAttachment.maximumByteCount + 1))
            try handle.close()
            defer { try? FileManager.default.removeItem(at: big) }
            let session = LanguageModelSession(model: try EngineModels.model(EngineModels.smollm))
            do {
                _ = try await session.respond {
                    "Describe it."
                    Attachment(imageURL: big)
                }
                Issue.record("a 20 MB+ file was accepted")
            } catch LanguageModelError.unsupportedTranscriptContent(let context) {
                #expect(context.debugDescription.contains("images up to 20 MB can be attached"))
            }
            let missing = URL(fileURLWithPath: "/nonexistent/picture.png")
            await #expect(throws: LanguageModelError.self) {
                _ = try await session.respond {
                    "Describe it."
                    Attachment(imageURL: missing)
                }
            }
        }

        /// The real model answers a question about the image with the text in it.
        @Test func theModelAnswersWithTheTextInTheImage() async throws {
            let session = LanguageModelSession(
                model: try EngineModels.model(EngineModels.qwen),
                instructions: "Answer from the image context in one short sentence.")
            let response = try await session.respond(
                options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 30)
            ) {
                "Which room is the design review in, and on which day?"
                Attachment(imageURL: try Images.url("screenshot.png")).label("calendar")
            }
            #expect(response.content.contains("Aurora"), "the answer was: \(response.content)")
            #expect(response.content.contains("Thursday"), "the answer was: \(response.content)")
            // The transcript keeps the image as an attachment segment of the prompt, with its label.
            guard
                case .prompt(let prompt)? = session.transcript.first(where: {
                    if case .prompt = $0 { true } else { false }
                })
            else {
                Issue.record("no prompt in \(session.transcript)")
                return
            }
            let attachments = prompt.segments.compactMap { segment -> Transcript.AttachmentSegment? in
                if case .attachment(let attachment) = segment { attachment } else { nil }
            }
            #expect(attachments.count == 1)
            #expect(attachments.first?.label == "calendar")
            #expect(attachments.first.map { if case .image = $0.content { true } else { false } } == true)
            // The image's words count as prompt tokens.
            #expect(response.usage.input.totalTokenCount > 40)
        }
    }
}
