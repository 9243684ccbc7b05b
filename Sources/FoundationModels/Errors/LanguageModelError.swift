import Foundation

/// Why a request failed, in the iOS 27 SDK's terms.
///
/// Sotto throws the 26 SDK's ``LanguageModelSession/GenerationError`` where it has a case for the
/// failure (see `docs/Porting.md`), and this type for what only the 27 SDK can say: a capability
/// the model lacks (``unsupportedCapability(_:)``) and transcript content it cannot read
/// (``unsupportedTranscriptContent(_:)``: an attachment that is not an image, too large, or
/// corrupt; a conversation the model's chat template cannot render).
public enum LanguageModelError: Error, LocalizedError, CustomDebugStringConvertible {
    case contextSizeExceeded(ContextSizeExceeded)
    case rateLimited(RateLimited)
    case guardrailViolation(GuardrailViolation)
    case refusal(Refusal)
    case unsupportedCapability(UnsupportedCapability)
    case unsupportedTranscriptContent(UnsupportedTranscriptContent)
    case unsupportedGenerationGuide(UnsupportedGenerationGuide)
    case unsupportedLanguageOrLocale(UnsupportedLanguageOrLocale)
    case timeout(Timeout)

    public struct ContextSizeExceeded: Sendable {
        public var contextSize: Int
        public var tokenCount: Int
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(contextSize: Int, tokenCount: Int, debugDescription: String, metadata: [String: any Sendable] = [:])
        {
            self.contextSize = contextSize
            self.tokenCount = tokenCount
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    public struct RateLimited: Sendable {
        public var resetDate: Date?
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(resetDate: Date?, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.resetDate = resetDate
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    public struct GuardrailViolation: Sendable {
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// The model chose not to respond, with its explanation of why.
    public struct Refusal: Sendable {
        public var debugDescription: String
        public var metadata: [String: any Sendable]
        /// The model's explanation, as the executor gave it.
        package let explanationText: String

        /// A refusal a model explained with `explanation`.
        public init(explanation: String, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.explanationText = explanation
            self.debugDescription = debugDescription
            self.metadata = metadata
        }

        /// The model's explanation for why it refused to respond.
        nonisolated(nonsending) public var explanation: LanguageModelSession.Response<String> {
            get async throws {
                try await explanationStream.collect()
            }
        }

        /// The model's explanation for why it refused to respond, as a stream (one snapshot: a
        /// refusal arrives with its explanation whole).
        public var explanationStream: LanguageModelSession.ResponseStream<String> {
            let response = Transcript.Response(segments: [.text(Transcript.TextSegment(content: explanationText))])
            return LanguageModelSession.ResponseStream(finishedWith: explanationText, entries: [.response(response)])
        }
    }

    public struct UnsupportedCapability: Sendable {
        public var capability: LanguageModelCapabilities.Capability
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(
            capability: LanguageModelCapabilities.Capability, debugDescription: String,
            metadata: [String: any Sendable] = [:]
        ) {
            self.capability = capability
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    public struct UnsupportedTranscriptContent: Sendable {
        public var unsupportedContent: [Transcript.Entry]
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(
            unsupportedContent: [Transcript.Entry], debugDescription: String, metadata: [String: any Sendable] = [:]
        ) {
            self.unsupportedContent = unsupportedContent
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    public struct UnsupportedGenerationGuide: Sendable {
        public var schemaName: String?
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(schemaName: String?, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.schemaName = schemaName
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    public struct UnsupportedLanguageOrLocale: Sendable {
        public var languageCode: Locale.LanguageCode
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(
            languageCode: Locale.LanguageCode, debugDescription: String, metadata: [String: any Sendable] = [:]
        ) {
            self.languageCode = languageCode
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    public struct Timeout: Sendable {
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// The payload's description.
    package var detail: String {
        switch self {
        case .contextSizeExceeded(let payload): payload.debugDescription
        case .rateLimited(let payload): payload.debugDescription
        case .guardrailViolation(let payload): payload.debugDescription
        case .refusal(let payload): payload.debugDescription
        case .unsupportedCapability(let payload): payload.debugDescription
        case .unsupportedTranscriptContent(let payload): payload.debugDescription
        case .unsupportedGenerationGuide(let payload): payload.debugDescription
        case .unsupportedLanguageOrLocale(let payload): payload.debugDescription
        case .timeout(let payload): payload.debugDescription
        }
    }

    /// The case's name.
    package var caseName: String {
        switch self {
        case .contextSizeExceeded: "contextSizeExceeded"
        case .rateLimited: "rateLimited"
        case .guardrailViolation: "guardrailViolation"
        case .refusal: "refusal"
        case .unsupportedCapability: "unsupportedCapability"
        case .unsupportedTranscriptContent: "unsupportedTranscriptContent"
        case .unsupportedGenerationGuide: "unsupportedGenerationGuide"
        case .unsupportedLanguageOrLocale: "unsupportedLanguageOrLocale"
        case .timeout: "timeout"
        }
    }

    public var debugDescription: String { "\(caseName)(\(detail))" }

    public var errorDescription: String? {
        switch self {
        case .contextSizeExceeded: "The content exceeds the model's context size."
        case .rateLimited: "Too many requests."
        case .guardrailViolation: "The content was flagged by a guardrail."
        case .refusal: "The model refused to respond."
        case .unsupportedCapability(let payload): "The model does not support \(payload.capability)."
        case .unsupportedTranscriptContent: "The model cannot read some of the transcript's content."
        case .unsupportedGenerationGuide: "A generation guide in the schema is not supported."
        case .unsupportedLanguageOrLocale: "The language or locale is not supported."
        case .timeout: "The request timed out."
        }
    }

    public var failureReason: String? { detail }
}
