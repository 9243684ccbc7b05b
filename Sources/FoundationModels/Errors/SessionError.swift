import Foundation

extension LanguageModelSession {
    /// Misuse of a session, in the iOS 27 SDK's terms. (Sotto throws
    /// ``GenerationError/concurrentRequests(_:)`` for a second request, as the 26 SDK does.)
    public enum Error: Swift.Error, LocalizedError, CustomDebugStringConvertible, Equatable, Hashable {
        /// A request was made while another was running.
        case concurrentRequests
        /// The transcript was changed while the session was responding.
        case transcriptMutationWhileResponding

        public var debugDescription: String {
            switch self {
            case .concurrentRequests: "concurrentRequests"
            case .transcriptMutationWhileResponding: "transcriptMutationWhileResponding"
            }
        }

        public var errorDescription: String? {
            switch self {
            case .concurrentRequests: "The session is already responding to a request."
            case .transcriptMutationWhileResponding: "The transcript cannot change while the session is responding."
            }
        }
    }
}

extension SystemLanguageModel {
    /// Why the system model cannot be used, in the iOS 27 SDK's terms. (Sotto throws
    /// ``LanguageModelSession/GenerationError/assetsUnavailable(_:)``, as the 26 SDK does; see
    /// `docs/Porting.md`.)
    public enum Error: Swift.Error, LocalizedError, CustomDebugStringConvertible {
        case assetsUnavailable(AssetsUnavailable)

        public struct AssetsUnavailable: Sendable {
            public var debugDescription: String

            public init(debugDescription: String) {
                self.debugDescription = debugDescription
            }
        }

        public var debugDescription: String {
            switch self {
            case .assetsUnavailable(let payload): "assetsUnavailable(\(payload.debugDescription))"
            }
        }

        public var errorDescription: String? {
            switch self {
            case .assetsUnavailable: "The language model is unavailable."
            }
        }
    }
}

extension GeneratedContent {
    /// Generated text that could not be read as the requested content (the 27 SDK's name for
    /// what the 26 SDK reports as ``LanguageModelSession/GenerationError/decodingFailure(_:)``,
    /// which is what Sotto throws).
    public struct ParsingError: LocalizedError, CustomDebugStringConvertible, Sendable {
        public var rawContent: String
        public var underlyingError: (any Swift.Error)?
        public var debugDescription: String

        public init(rawContent: String, underlyingError: (any Swift.Error)? = nil, debugDescription: String) {
            self.rawContent = rawContent
            self.underlyingError = underlyingError
            self.debugDescription = debugDescription
        }

        public var errorDescription: String? { "The model's output could not be parsed." }
    }
}

/// What happens to a session's transcript when a request fails (as in the iOS 27 SDK).
///
/// A cancelled request always keeps what it produced, whatever the policy: its prompt and the
/// partial response stay in the transcript.
public struct TranscriptErrorHandlingPolicy: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case revert, preserve
    }

    package let kind: Kind

    /// Back to the transcript from before the request (the default).
    public static let revertTranscript = TranscriptErrorHandlingPolicy(kind: .revert)
    /// Keep the request's prompt and whatever it produced before it failed.
    public static let preserveTranscript = TranscriptErrorHandlingPolicy(kind: .preserve)
}
