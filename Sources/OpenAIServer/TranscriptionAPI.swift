import AudioDecoding
import Foundation
import HTTPCore
import ServerKit
import Whisper

/// OpenAI's `POST /v1/audio/transcriptions` on Sotto's own Whisper: a multipart form with
/// `file` (WAV at any rate, mono or stereo, PCM or float; or raw 16-bit PCM sent as
/// `audio/L16;rate=16000` or `audio/pcm`), `model`, `language`,
/// `prompt`, `response_format` (`json`, `text`, `verbose_json`) and `temperature`. The API key
/// is a Sotto token, as on the other `/v1` routes; errors are in OpenAI's shape.
package struct TranscriptionAPI: Sendable {
    package let service: TranscriptionService
    package let authenticate: @Sendable (HTTPRequest) async throws -> TokenClaims

    package static let path = "/v1/audio/transcriptions"
    /// The largest upload (OpenAI's limit): 25 MB, about 13 minutes of 16 kHz 16-bit WAV.
    package static let maxBytes = 25 * 1024 * 1024
    /// The longest audio transcribed.
    package static let maxSeconds = 30 * 60.0
    /// OpenAI's model name, which clients send by default: it means this server's speech model.
    package static let openAIModelName = "whisper-1"

    package init(
        service: TranscriptionService, authenticate: @escaping @Sendable (HTTPRequest) async throws -> TokenClaims
    ) {
        self.service = service
        self.authenticate = authenticate
    }

    /// Whether a request head is an upload to this route (its body may pass the usual limit).
    package static func isUpload(method: String, path: String) -> Bool { method == "POST" && path == Self.path }

    package func add(to routes: inout RouteList) {
        routes.add(
            "POST", Self.path, authenticated: false,
            APIOperation(
                id: "openAICreateTranscription",
                summary:
                    "OpenAI-compatible speech to text with the server's Whisper model (multipart: file, model, language, prompt, response_format json/text/verbose_json, temperature). WAV at any rate, or raw 16-bit PCM (audio/L16;rate=N). Up to 25 MB. API key: a Sotto token.",
                body: Self.requestSchema, bodyMediaTypes: ["multipart/form-data"],
                answers: [
                    .init(
                        200, "The text (json or verbose_json), or plain text.", Self.responseSchema,
                        mediaTypes: ["application/json", "text/plain"])
                ],
                errors: [404, 503], authenticatesItself: true)
        ) { context in
            do {
                return try await transcribe(context)
            } catch {
                return OpenAIError(error, requestID: context.requestID).response
            }
        }
    }

    private func transcribe(_ context: RequestContext) async throws -> HTTPResponse {
        _ = try await authenticate(context.request)
        let request = try TranscriptionRequest(
            body: context.request.body, contentType: context.request.header("Content-Type"))
        guard service.isAvailable else {
            throw OpenAIError(
                status: 503, message: "No speech model: run `sotto model pull whisper-base` and restart the server.",
                type: "server_error", param: nil, code: "model_unavailable")
        }
        guard request.model == service.modelID || request.model == Self.openAIModelName else {
            throw OpenAIError(
                status: 404,
                message: "The model '\(request.model)' does not exist on this server; it runs '\(service.modelID)'.",
                type: "invalid_request_error", param: "model", code: "model_not_found")
        }
        let maxSeconds = Self.maxSeconds
        let result: Transcription
        do {
            // Decoding and resampling are work for the model's thread too, not a request's task.
            result = try await service.transcribe(options: request.options) {
                let samples = try request.samples()
                guard Double(samples.count) / Double(AudioInput.targetRate) <= maxSeconds else {
                    throw OpenAIError.invalidRequest(
                        "The audio is longer than \(Int(maxSeconds / 60)) minutes.", param: "file",
                        code: "audio_too_long")
                }
                return samples
            }
        } catch TranscriptionService.Refusal.busy(let capacity) {
            throw OpenAIError(
                status: 429, message: "\(capacity) transcriptions are already running or waiting; retry shortly.",
                type: "rate_limit_error", param: nil, code: "queue_full")
        } catch TranscriptionService.Refusal.unavailable(let reason) {
            throw OpenAIError(status: 503, message: reason, type: "server_error", param: nil, code: "model_unavailable")
        }
        switch request.responseFormat {
        case .text:
            return .text(result.text + "\n")
        case .json:
            return JSONBody.response(TranscriptionJSON(text: result.text))
        case .verboseJSON:
            return JSONBody.response(VerboseTranscriptionJSON(result, task: request.options.task))
        }
    }

    package static let requestSchema = ##"""
        {"type": "object", "required": ["file", "model"], "properties": {
          "file": {"type": "string", "format": "binary"},
          "model": {"type": "string"},
          "language": {"type": "string"},
          "prompt": {"type": "string"},
          "response_format": {"type": "string", "enum": ["json", "text", "verbose_json"]},
          "temperature": {"type": "number", "minimum": 0, "maximum": 1}}}
        """##

    package static let responseSchema = ##"""
        {"type": "object", "required": ["text"], "properties": {
          "text": {"type": "string"}, "task": {"type": "string"}, "language": {"type": "string"},
          "duration": {"type": "number"},
          "segments": {"type": "array", "items": {"type": "object"}}}}
        """##
}

/// The form of a transcription request, read and checked.
package struct TranscriptionRequest: Sendable {
    package enum ResponseFormat: String {
        case json, text
        case verboseJSON = "verbose_json"
    }

    package var model: String
    package var file: MultipartForm.Part
    package var responseFormat: ResponseFormat
    package var options: TranscriptionOptions

    package init(body: [UInt8], contentType: String?) throws {
        let form: MultipartForm
        do { form = try MultipartForm(body: body, contentType: contentType) } catch {
            throw OpenAIError.invalidRequest("The body must be a multipart form: \(error).", param: nil)
        }
        guard let file = form.part(named: "file") else {
            throw OpenAIError.invalidRequest("The form has no 'file' part (the audio).", param: "file")
        }
        guard let model = form.part(named: "model")?.text.trimmingCharacters(in: .whitespaces), !model.isEmpty else {
            throw OpenAIError.invalidRequest("The form has no 'model'.", param: "model")
        }
        self.model = model
        self.file = file
        let formatName = form.part(named: "response_format")?.text.trimmingCharacters(in: .whitespaces) ?? "json"
        guard let format = ResponseFormat(rawValue: formatName) else {
            throw OpenAIError.invalidRequest(
                "response_format '\(formatName)' is not supported: json, text or verbose_json.",
                param: "response_format")
        }
        responseFormat = format
        var options = TranscriptionOptions()
        if let language = form.part(named: "language")?.text.trimmingCharacters(in: .whitespaces).lowercased(),
            !language.isEmpty
        {
            guard language.count <= 8, language.allSatisfy({ $0.isLetter || $0 == "-" }) else {
                throw OpenAIError.invalidRequest("language must be a language code such as 'en'.", param: "language")
            }
            options.language = language
        }
        if let prompt = form.part(named: "prompt")?.text, !prompt.isEmpty {
            guard prompt.utf8.count <= 4096 else {
                throw OpenAIError.invalidRequest("The prompt is longer than 4 KB.", param: "prompt")
            }
            options.initialPrompt = prompt
        }
        if let text = form.part(named: "temperature")?.text.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard let value = Float(text), value.isFinite, value >= 0, value <= 1 else {
                throw OpenAIError.invalidRequest("temperature must be a number from 0 to 1.", param: "temperature")
            }
            // 0 (OpenAI's default) means: raise the temperature only while the result looks wrong.
            if value > 0 { options.temperatures = [value] }
        }
        self.options = options
    }

    /// The file's 16 kHz samples: WAV by its header, raw 16-bit PCM by its content type.
    package func samples() throws -> [Float] {
        let type = (file.contentType ?? "").lowercased()
        do {
            if !WAVFile.matches(file.bytes), let raw = Self.rawPCM(type) {
                return try AudioInput.samples(raw: file.bytes, format: .s16le, rate: raw.rate, channels: raw.channels)
            }
            return try AudioInput.samples(of: file.bytes)
        } catch {
            throw OpenAIError.invalidRequest(
                "The audio file cannot be read: \(error.description).", param: "file", code: "invalid_audio")
        }
    }

    /// Rate and channels of a raw PCM content type: `audio/L16;rate=48000;channels=2`, or
    /// `audio/pcm` (16 kHz mono unless it says). Nothing else is taken as raw samples: any bytes
    /// would decode as noise.
    package static func rawPCM(_ type: String) -> (rate: Int, channels: Int)? {
        let pieces = type.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let media = pieces.first, ["audio/l16", "audio/pcm"].contains(media) else {
            return nil
        }
        var rate = AudioInput.targetRate, channels = 1
        for piece in pieces.dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            if pair[0] == "rate", let value = Int(pair[1]) { rate = value }
            if pair[0] == "channels", let value = Int(pair[1]) { channels = value }
        }
        return (rate, channels)
    }
}

package struct TranscriptionJSON: Encodable {
    package var text: String
}

/// OpenAI's `verbose_json`: the text, the language (its code), the duration and the segments.
package struct VerboseTranscriptionJSON: Encodable {
    package struct Segment: Encodable {
        var id: Int
        var seek: Int
        var start: Double
        var end: Double
        var text: String
        var tokens: [Int]
        var temperature: Float
        var avg_logprob: Float
        var compression_ratio: Float
        var no_speech_prob: Float
    }

    package var task: String
    package var language: String
    package var duration: Double
    package var text: String
    package var segments: [Segment]

    package init(_ result: Transcription, task: TranscriptionOptions.Task) {
        self.task = task.rawValue
        language = result.language
        duration = result.duration
        text = result.text
        segments = result.segments.enumerated().map { index, s in
            Segment(
                id: index, seek: Int((s.start * 100).rounded()), start: s.start, end: s.end, text: s.text,
                tokens: s.tokens, temperature: s.temperature, avg_logprob: s.averageLogProbability,
                compression_ratio: s.compressionRatio, no_speech_prob: s.noSpeechProbability)
        }
    }
}
