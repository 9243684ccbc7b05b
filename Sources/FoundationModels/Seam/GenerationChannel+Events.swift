import Foundation

// The events an executor sends, with the names and shapes of the iOS 27 SDK. Where the SDK gives
// a type no public initializer (fragments, metadata), Sotto does not either: events are built
// with the static functions (`.appendText(_:segmentID:tokenCount:)`, `.toolCall(id:name:action:)`).

extension LanguageModelExecutorGenerationChannel {
    /// Values an executor attaches to an entry (a model name, a request id).
    public struct Metadata: Sendable {
        public var values: [String: any Sendable & Codable & Equatable]

        package init(values: [String: any Sendable & Codable & Equatable]) {
            self.values = values
        }
    }

    /// Tokens read and generated for the turn so far (each update replaces the previous one).
    public struct Usage: Sendable {
        public var input: Input
        public var output: Output

        public struct Input: Sendable {
            /// Every prompt token, including cached ones.
            public var totalTokenCount: Int
            /// Prompt tokens served from a cache instead of being read again.
            public var cachedTokenCount: Int

            public init(totalTokenCount: Int, cachedTokenCount: Int) {
                self.totalTokenCount = totalTokenCount
                self.cachedTokenCount = cachedTokenCount
            }
        }

        public struct Output: Sendable {
            /// Every generated token (text, tool calls and reasoning).
            public var totalTokenCount: Int
            /// The tokens spent reasoning.
            public var reasoningTokenCount: Int

            public init(totalTokenCount: Int, reasoningTokenCount: Int) {
                self.totalTokenCount = totalTokenCount
                self.reasoningTokenCount = reasoningTokenCount
            }
        }

        public init(input: Input, output: Output) {
            self.input = input
            self.output = output
        }
    }

    /// Text added to a segment.
    public struct TextFragment: Sendable {
        public var content: String
        /// The segment the text belongs to; nil for the entry's current text segment.
        public var segmentID: String?
        /// How many tokens the text took.
        public var tokenCount: Int
    }

    /// New text for a whole segment.
    public struct TextSegmentReplacement: Sendable {
        public var content: String
        public var segmentID: String?
        public var tokenCount: Int
    }

    /// An opaque signature of a reasoning entry.
    public struct ReasoningSignature: Sendable {
        public var signature: Data
        public var tokenCount: Int
    }

    /// A change to the response entry.
    public struct Response: Event {
        /// The id of the entry; nil for the one the session makes.
        public var entryID: String?
        public var action: Action

        public var kind: EventKind { EventKind(.response) }

        public enum Action: Sendable {
            case appendText(TextFragment)
            case replaceTextSegment(TextSegmentReplacement)
            case updateCustomSegment(any Transcript.CustomSegment)
            case addAttachmentSegment(Transcript.AttachmentSegment)
            case removeAttachmentSegment(id: String)
            case updateMetadata(Metadata)
            case updateUsage(Usage)
        }
    }

    /// A change to a reasoning entry.
    public struct Reasoning: Event {
        public var entryID: String?
        public var action: Action

        public var kind: EventKind { EventKind(.reasoning) }

        public enum Action: Sendable {
            case appendText(TextFragment)
            case replaceTextSegment(TextSegmentReplacement)
            case updateSignature(ReasoningSignature)
            case updateMetadata(Metadata)
            case updateUsage(Usage)
        }
    }

    /// A change to the tool-calls entry.
    public struct ToolCalls: Event {
        public var entryID: String?
        public var action: Action

        public var kind: EventKind { EventKind(.toolCalls) }

        public enum Action: Sendable {
            case toolCall(ToolCall)
            case removeToolCall(id: String)
            case updateMetadata(Metadata)
            case updateUsage(Usage)
        }

        /// A change to one call: more of its arguments (JSON text), or its metadata.
        public struct ToolCall: Sendable {
            public var id: String
            public var name: String
            public var action: Action

            public enum Action: Sendable {
                case appendArguments(ArgumentsFragment)
                case updateMetadata(Metadata)
            }

            /// More of a call's arguments, as JSON text.
            public struct ArgumentsFragment: Sendable {
                public var content: String
                public var tokenCount: Int
            }
        }
    }
}

// MARK: - Building events

extension LanguageModelExecutorGenerationChannel.Response.Action {
    public static func appendText(_ text: String, segmentID: String? = nil, tokenCount: Int) -> Self {
        .appendText(.init(content: text, segmentID: segmentID, tokenCount: tokenCount))
    }

    public static func replaceTextSegment(_ text: String, segmentID: String? = nil, tokenCount: Int) -> Self {
        .replaceTextSegment(.init(content: text, segmentID: segmentID, tokenCount: tokenCount))
    }

    public static func updateMetadata(_ values: [String: any Sendable & Codable & Equatable]) -> Self {
        .updateMetadata(.init(values: values))
    }

    public static func updateUsage(
        input: LanguageModelExecutorGenerationChannel.Usage.Input,
        output: LanguageModelExecutorGenerationChannel.Usage.Output
    ) -> Self {
        .updateUsage(.init(input: input, output: output))
    }
}

extension LanguageModelExecutorGenerationChannel.Reasoning.Action {
    public static func appendText(_ text: String, segmentID: String? = nil, tokenCount: Int) -> Self {
        .appendText(.init(content: text, segmentID: segmentID, tokenCount: tokenCount))
    }

    public static func replaceTextSegment(_ text: String, segmentID: String? = nil, tokenCount: Int) -> Self {
        .replaceTextSegment(.init(content: text, segmentID: segmentID, tokenCount: tokenCount))
    }

    public static func updateSignature(_ signature: Data, tokenCount: Int) -> Self {
        .updateSignature(.init(signature: signature, tokenCount: tokenCount))
    }

    public static func updateMetadata(_ values: [String: any Sendable & Codable & Equatable]) -> Self {
        .updateMetadata(.init(values: values))
    }

    public static func updateUsage(
        input: LanguageModelExecutorGenerationChannel.Usage.Input,
        output: LanguageModelExecutorGenerationChannel.Usage.Output
    ) -> Self {
        .updateUsage(.init(input: input, output: output))
    }
}

extension LanguageModelExecutorGenerationChannel.ToolCalls.Action {
    public static func toolCall(
        id: String, name: String, action: LanguageModelExecutorGenerationChannel.ToolCalls.ToolCall.Action
    ) -> Self {
        .toolCall(.init(id: id, name: name, action: action))
    }

    public static func updateMetadata(_ values: [String: any Sendable & Codable & Equatable]) -> Self {
        .updateMetadata(.init(values: values))
    }

    public static func updateUsage(
        input: LanguageModelExecutorGenerationChannel.Usage.Input,
        output: LanguageModelExecutorGenerationChannel.Usage.Output
    ) -> Self {
        .updateUsage(.init(input: input, output: output))
    }
}

extension LanguageModelExecutorGenerationChannel.ToolCalls.ToolCall.Action {
    public static func appendArguments(_ content: String, tokenCount: Int) -> Self {
        .appendArguments(.init(content: content, tokenCount: tokenCount))
    }

    public static func updateMetadata(_ values: [String: any Sendable & Codable & Equatable]) -> Self {
        .updateMetadata(.init(values: values))
    }
}

extension LanguageModelExecutorGenerationChannel.Event where Self == LanguageModelExecutorGenerationChannel.Response {
    public static func response(
        entryID: String? = nil, action: LanguageModelExecutorGenerationChannel.Response.Action
    ) -> Self {
        .init(entryID: entryID, action: action)
    }
}

extension LanguageModelExecutorGenerationChannel.Event where Self == LanguageModelExecutorGenerationChannel.ToolCalls {
    public static func toolCalls(
        entryID: String? = nil, action: LanguageModelExecutorGenerationChannel.ToolCalls.Action
    ) -> Self {
        .init(entryID: entryID, action: action)
    }
}

extension LanguageModelExecutorGenerationChannel.Event where Self == LanguageModelExecutorGenerationChannel.Reasoning {
    public static func reasoning(
        entryID: String? = nil, action: LanguageModelExecutorGenerationChannel.Reasoning.Action
    ) -> Self {
        .init(entryID: entryID, action: action)
    }
}
