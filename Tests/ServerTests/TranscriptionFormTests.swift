import Foundation
import TestSupport
import Testing

@testable import OpenAIServer
@testable import Server

/// The transcription route's form handling, without a model: the multipart parser and the
/// request's fields, each refusal a 400 in OpenAI's shape that names the field.
@Suite("Transcription form")
struct TranscriptionFormTests {
    static let boundary = "----sotto-test-7MA4YWxk"

    static func form(_ parts: [(name: String, filename: String?, type: String?, bytes: [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for part in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
            if let filename = part.filename { head += "; filename=\"\(filename)\"" }
            head += "\r\n"
            if let type = part.type { head += "Content-Type: \(type)\r\n" }
            body += Array((head + "\r\n").utf8) + part.bytes + Array("\r\n".utf8)
        }
        return body + Array("--\(boundary)--\r\n".utf8)
    }

    static let contentType = "multipart/form-data; boundary=\(boundary)"

    @Test(.onTestThreads) func partsAreSplitWithTheirNamesAndTypes() throws {
        // The file's bytes hold CRLF and dashes, as audio may.
        let audio: [UInt8] = [0x0D, 0x0A, 0x2D, 0x2D, 0x00, 0xFF]
        let body = Self.form([
            ("model", nil, nil, Array("whisper-base".utf8)), ("file", "a.wav", "audio/wav", audio),
            ("language", nil, nil, Array("en".utf8)),
        ])
        let form = try MultipartForm(body: body, contentType: Self.contentType)
        #expect(form.parts.map(\.name) == ["model", "file", "language"])
        #expect(form.part(named: "file")?.bytes == audio)
        #expect(form.part(named: "file")?.filename == "a.wav")
        #expect(form.part(named: "file")?.contentType == "audio/wav")
        #expect(form.part(named: "model")?.text == "whisper-base")
        #expect(MultipartForm.boundary(of: "multipart/form-data; boundary=\"abc\"") == "abc")
        #expect(MultipartForm.boundary(of: "application/json") == nil)
    }

    @Test(
        .onTestThreads,
        arguments: [
            ("", "no boundary"), ("--other\r\n\r\n", "does not occur"),
            ("--\(boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue", "closing boundary"),
            ("--\(boundary)\r\nContent-Disposition: form-data\r\n\r\nv\r\n--\(boundary)--", "no name"),
            ("--\(boundary)garbage", "line break"),
        ])
    func malformedFormsAreRefused(body: String, says: String) {
        #expect(throws: MultipartForm.Malformed.self) {
            do {
                _ = try MultipartForm(
                    body: Array(body.utf8), contentType: body.isEmpty ? "multipart/form-data" : Self.contentType)
            } catch let error as MultipartForm.Malformed {
                #expect(error.description.contains(says) || says == "no boundary", "\(error)")
                throw error
            }
        }
    }

    @Test(.onTestThreads) func fieldsBecomeOptions() throws {
        let request = try TranscriptionRequest(
            body: Self.form([
                ("file", "a.pcm", "audio/L16;rate=48000;channels=2", [UInt8](repeating: 0, count: 24)),
                ("model", nil, nil, Array("whisper-1".utf8)),
                ("language", nil, nil, Array("EN".utf8)), ("prompt", nil, nil, Array("Sotto".utf8)),
                ("response_format", nil, nil, Array("verbose_json".utf8)), ("temperature", nil, nil, Array("0.4".utf8)),
            ]), contentType: Self.contentType)
        #expect(request.model == "whisper-1")
        #expect(request.responseFormat == .verboseJSON)
        #expect(request.options.language == "en")
        #expect(request.options.initialPrompt == "Sotto")
        #expect(request.options.temperatures == [0.4])
        let raw = try #require(TranscriptionRequest.rawPCM("audio/l16;rate=48000;channels=2"))
        #expect(raw.rate == 48000 && raw.channels == 2)
        #expect(try request.samples().count == 2)  // six stereo frames at 48 kHz → two at 16 kHz
        // temperature 0 keeps the fallback sequence (OpenAI: raise it while the result looks wrong).
        let zero = try TranscriptionRequest(
            body: Self.form([
                ("file", nil, nil, [1]), ("model", nil, nil, Array("m".utf8)),
                ("temperature", nil, nil, Array("0".utf8)),
            ]), contentType: Self.contentType)
        #expect(zero.options.temperatures.count == 6)
    }

    @Test(
        .onTestThreads,
        arguments: [
            ("model", "whisper-base", "file"), ("file", "x", "model"),
        ])
    func missingFieldsAreNamed(present: String, value: String, missing: String) {
        let body = Self.form([(present, nil, nil, Array(value.utf8))])
        #expect(throws: OpenAIError.self) {
            do { _ = try TranscriptionRequest(body: body, contentType: Self.contentType) } catch let error
                as OpenAIError
            {
                #expect(error.status == 400 && error.param == missing, "\(error)")
                throw error
            }
        }
    }

    @Test(
        .onTestThreads,
        arguments: [
            ("response_format", "srt"), ("temperature", "2"), ("temperature", "hot"), ("language", "en; drop table"),
        ])
    func badValuesAreNamed(field: String, value: String) {
        let body = Self.form([
            ("file", "a.wav", nil, [1, 2]), ("model", nil, nil, Array("whisper-base".utf8)),
            (field, nil, nil, Array(value.utf8)),
        ])
        #expect(throws: OpenAIError.self) {
            do { _ = try TranscriptionRequest(body: body, contentType: Self.contentType) } catch let error
                as OpenAIError
            {
                #expect(error.status == 400 && error.param == field, "\(error)")
                throw error
            }
        }
    }
}
