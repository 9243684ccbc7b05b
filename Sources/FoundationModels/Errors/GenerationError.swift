import Foundation

extension LanguageModelSession {
    /// Why a request failed.
    public enum GenerationError: Swift.Error, LocalizedError {
        /// The instructions, transcript, prompt (and schema) do not fit in the context window.
        case exceededContextWindowSize(Context)
        /// The model is not available: not downloaded, not loadable, or not configured.
        case assetsUnavailable(Context)
        /// A guardrail flagged the input or output.
        case guardrailViolation(Context)
        /// A guide in the schema cannot be enforced.
        case unsupportedGuide(Context)
        /// The prompt's language or locale is not supported.
        case unsupportedLanguageOrLocale(Context)
        /// The output could not be turned into the requested type.
        case decodingFailure(Context)
        /// Too many requests were made in a short time.
        case rateLimited(Context)
        /// The session is already responding to a request; make one request at a time.
        case concurrentRequests(Context)
        /// The model refused to produce the requested content.
        case refusal(Refusal, Context)

        /// Details for debugging.
        public struct Context: Sendable {
            /// A description of what went wrong, with the values involved.
            public let debugDescription: String

            public init(debugDescription: String) {
                self.debugDescription = debugDescription
            }
        }

        /// A refusal, with the transcript entries that explain it.
        public struct Refusal: Sendable {
            package let transcriptEntries: [Transcript.Entry]

            public init(transcriptEntries: [Transcript.Entry]) {
                self.transcriptEntries = transcriptEntries
            }

            /// The model's explanation of the refusal.
            public var explanation: Response<String> {
                get async throws {
                    try await explanationStream.collect()
                }
            }

            /// The model's explanation of the refusal, as a stream.
            public var explanationStream: ResponseStream<String> {
                let text =
                    transcriptEntries.reversed().lazy.compactMap { entry -> String? in
                        if case .response(let response) = entry { return response.segments.text }
                        return nil
                    }.first ?? "The model declined to respond."
                return ResponseStream(finishedWith: text, entries: transcriptEntries)
            }
        }

        /// The context of any case.
        package var context: Context {
            switch self {
            case .exceededContextWindowSize(let context), .assetsUnavailable(let context),
                .guardrailViolation(let context), .unsupportedGuide(let context),
                .unsupportedLanguageOrLocale(let context), .decodingFailure(let context),
                .rateLimited(let context), .concurrentRequests(let context), .refusal(_, let context):
                context
            }
        }

        /// The case's name.
        package var caseName: String {
            switch self {
            case .exceededContextWindowSize: "exceededContextWindowSize"
            case .assetsUnavailable: "assetsUnavailable"
            case .guardrailViolation: "guardrailViolation"
            case .unsupportedGuide: "unsupportedGuide"
            case .unsupportedLanguageOrLocale: "unsupportedLanguageOrLocale"
            case .decodingFailure: "decodingFailure"
            case .rateLimited: "rateLimited"
            case .concurrentRequests: "concurrentRequests"
            case .refusal: "refusal"
            }
        }

        /// The same error with `prefix` added to its description (for example a property path).
        package func prefixed(by prefix: String) -> GenerationError {
            let context = Context(debugDescription: prefix + self.context.debugDescription)
            switch self {
            case .exceededContextWindowSize: return .exceededContextWindowSize(context)
            case .assetsUnavailable: return .assetsUnavailable(context)
            case .guardrailViolation: return .guardrailViolation(context)
            case .unsupportedGuide: return .unsupportedGuide(context)
            case .unsupportedLanguageOrLocale: return .unsupportedLanguageOrLocale(context)
            case .decodingFailure: return .decodingFailure(context)
            case .rateLimited: return .rateLimited(context)
            case .concurrentRequests: return .concurrentRequests(context)
            case .refusal(let refusal, _): return .refusal(refusal, context)
            }
        }

        public var errorDescription: String? {
            switch self {
            case .exceededContextWindowSize: "The content exceeds the model's context window."
            case .assetsUnavailable: "The language model is unavailable."
            case .guardrailViolation: "The content was flagged by a guardrail."
            case .unsupportedGuide: "A generation guide in the schema is not supported."
            case .unsupportedLanguageOrLocale: "The language or locale is not supported."
            case .decodingFailure: "The model's output could not be decoded."
            case .rateLimited: "Too many requests."
            case .concurrentRequests: "The session is already responding to a request."
            case .refusal: "The model refused to respond."
            }
        }

        public var failureReason: String? { context.debugDescription }

        public var recoverySuggestion: String? {
            switch self {
            case .exceededContextWindowSize: "Start a new session with a shorter transcript, or shorten the prompt."
            case .assetsUnavailable:
                "Check the model's availability; download it with `sotto model pull`, or set SOTTO_MODEL."
            case .guardrailViolation: "Rephrase the request."
            case .unsupportedGuide: "Remove or change the guide."
            case .unsupportedLanguageOrLocale: "Use a supported language."
            case .decodingFailure: "Try again, or simplify the schema."
            case .rateLimited: "Try again later."
            case .concurrentRequests: "Wait for the current response to finish, or use another session."
            case .refusal: "Read the refusal's explanation, and rephrase the request."
            }
        }
    }

    /// A tool threw while the session was calling it.
    public struct ToolCallError: Swift.Error, LocalizedError {
        /// The tool that threw.
        public var tool: any Tool
        /// What it threw.
        public var underlyingError: any Swift.Error

        public init(tool: any Tool, underlyingError: any Swift.Error) {
            self.tool = tool
            self.underlyingError = underlyingError
        }

        public var errorDescription: String? {
            "The tool '\(tool.name)' failed: \(underlyingError.localizedDescription)"
        }
    }
}

extension LanguageModelSession.GenerationError: CustomDebugStringConvertible {
    public var debugDescription: String { "\(caseName)(\(context.debugDescription))" }
}
