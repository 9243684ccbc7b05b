import Foundation

// The events an executor sends, with the names and shapes of the iOS 27 SDK as shipped: an
// `Event` is a struct made with `.response(entryID:action:)`, `.reasoning(entryID:action:)` or
// `.toolCalls(entryID:action:)`; each `Action` is an enum-like struct made with its static
// functions (`.appendText(_:segmentID:tokenCount:)`, `.updateUsage(input:output:metadata:)`, …).
// Metadata goes in as `[String: any ConvertibleToGeneratedContent]` and is kept as
// `[String: GeneratedContent]`. Where the SDK gives a type no public initializer (fragments),
// Sotto does not either.

extension LanguageModelExecutorGenerationChannel {
    /// What an executor sends: a change to the response, a reasoning entry or the tool calls.
    public struct Event: Sendable {
        package enum Payload: Sendable {
            case response(Response)
            case toolCalls(ToolCalls)
            case reasoning(Reasoning)
        }

        package let payload: Payload

        package init(_ payload: Payload) {
            self.payload = payload
        }

        /// A response event addressed to a transcript entry (nil: the entry the session makes,
        /// into which consecutive response events coalesce).
        public static func response(entryID: String? = nil, action: Response.Action) -> Event {
            Event(.response(Response(entryID: entryID, action: action)))
        }

        /// A reasoning event addressed to a transcript entry.
        public static func reasoning(entryID: String? = nil, action: Reasoning.Action) -> Event {
            Event(.reasoning(Reasoning(entryID: entryID, action: action)))
        }

        /// A tool-calls event addressed to a transcript entry.
        public static func toolCalls(entryID: String? = nil, action: ToolCalls.Action) -> Event {
            Event(.toolCalls(ToolCalls(entryID: entryID, action: action)))
        }
    }

    /// Tokens read and generated for the entry so far: each update replaces the previous one
    /// wholesale.
    public struct Usage: Sendable {
        /// Token counts for the transcript the model read.
        public var input: Input
        /// Token counts for what the model produced.
        public var output: Output
        /// What the executor recorded beside the counts.
        public var metadata: [String: GeneratedContent]

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

        /// A usage update.
        public init(input: Input, output: Output, metadata: [String: any ConvertibleToGeneratedContent] = [:]) {
            self.input = input
            self.output = output
            self.metadata = metadata.mapValues(\.generatedContent)
        }
    }

    /// Text appended to an entry's current text segment.
    public struct TextFragment: Sendable {
        /// The text to append.
        public var content: String
        /// The segment the text belongs to; nil for the entry's current text segment.
        public var segmentID: String?
        /// How many tokens the text took.
        public var tokenCount: Int
    }

    /// New text for an entry's current (or named) text segment.
    public struct TextSegmentReplacement: Sendable {
        /// The replacement text.
        public var content: String
        /// The segment replaced; nil for the entry's current text segment.
        public var segmentID: String?
        /// How many tokens the replacement took.
        public var tokenCount: Int
    }

    /// A change to the response entry.
    public struct Response: Sendable {
        /// The id of the entry; nil for the one the session makes.
        public var entryID: String?
        /// The action to perform.
        public var action: Action

        /// An operation on a response entry.
        public struct Action: Sendable {
            package enum Kind: Sendable {
                case appendText(TextFragment)
                case replaceTextSegment(TextSegmentReplacement)
                case updateCustomSegment(any Transcript.CustomSegment)
                case addAttachmentSegment(Transcript.AttachmentSegment)
                case removeAttachmentSegment(id: String)
                case updateMetadata([String: GeneratedContent])
                case updateUsage(Usage)
            }

            package let kind: Kind

            package init(_ kind: Kind) {
                self.kind = kind
            }

            /// Appends text to the entry's current text segment (or to the segment `segmentID`).
            public static func appendText(_ text: String, segmentID: String? = nil, tokenCount: Int) -> Action {
                Action(.appendText(TextFragment(content: text, segmentID: segmentID, tokenCount: tokenCount)))
            }

            /// Replaces the text of the entry's current text segment (or of the segment `segmentID`).
            public static func replaceTextSegment(_ text: String, segmentID: String? = nil, tokenCount: Int) -> Action {
                Action(
                    .replaceTextSegment(
                        TextSegmentReplacement(content: text, segmentID: segmentID, tokenCount: tokenCount)))
            }

            /// Adds `segment`, or replaces the custom segment with its id (Sotto keeps this
            /// action of the 27 betas).
            public static func updateCustomSegment(_ segment: any Transcript.CustomSegment) -> Action {
                Action(.updateCustomSegment(segment))
            }

            /// Adds an attachment segment to the entry.
            public static func addAttachmentSegment(_ segment: Transcript.AttachmentSegment) -> Action {
                Action(.addAttachmentSegment(segment))
            }

            /// Removes an attachment segment from the entry.
            public static func removeAttachmentSegment(_ segment: Transcript.AttachmentSegment) -> Action {
                Action(.removeAttachmentSegment(id: segment.id))
            }

            /// Removes the attachment segment with this id (the 27 betas' spelling).
            public static func removeAttachmentSegment(id: String) -> Action {
                Action(.removeAttachmentSegment(id: id))
            }

            /// Replaces the entry's metadata.
            public static func updateMetadata(_ values: [String: any ConvertibleToGeneratedContent]) -> Action {
                Action(.updateMetadata(values.mapValues(\.generatedContent)))
            }

            /// Replaces the entry's token-usage totals.
            public static func updateUsage(
                input: Usage.Input, output: Usage.Output, metadata: [String: any ConvertibleToGeneratedContent] = [:]
            ) -> Action {
                Action(.updateUsage(Usage(input: input, output: output, metadata: metadata)))
            }
        }
    }

    /// A change to a reasoning entry.
    public struct Reasoning: Sendable {
        /// The id of the entry; nil for the one the session makes.
        public var entryID: String?
        /// The action to perform.
        public var action: Action

        /// An operation on a reasoning entry.
        public struct Action: Sendable {
            package enum Kind: Sendable {
                case appendText(TextFragment)
                case replaceTextSegment(TextSegmentReplacement)
                case updateSignature(Data, tokenCount: Int)
                case updateMetadata([String: GeneratedContent])
                case updateUsage(Usage)
            }

            package let kind: Kind

            package init(_ kind: Kind) {
                self.kind = kind
            }

            /// Appends text to the entry's current text segment.
            public static func appendText(_ text: String, segmentID: String? = nil, tokenCount: Int) -> Action {
                Action(.appendText(TextFragment(content: text, segmentID: segmentID, tokenCount: tokenCount)))
            }

            /// Replaces the text of the entry's current text segment.
            public static func replaceTextSegment(_ text: String, segmentID: String? = nil, tokenCount: Int) -> Action {
                Action(
                    .replaceTextSegment(
                        TextSegmentReplacement(content: text, segmentID: segmentID, tokenCount: tokenCount)))
            }

            /// Replaces the reasoning entry's opaque signature.
            public static func updateSignature(_ signature: Data, tokenCount: Int) -> Action {
                Action(.updateSignature(signature, tokenCount: tokenCount))
            }

            /// Replaces the entry's metadata.
            public static func updateMetadata(_ values: [String: any ConvertibleToGeneratedContent]) -> Action {
                Action(.updateMetadata(values.mapValues(\.generatedContent)))
            }

            /// Replaces the entry's token-usage totals.
            public static func updateUsage(
                input: Usage.Input, output: Usage.Output, metadata: [String: any ConvertibleToGeneratedContent] = [:]
            ) -> Action {
                Action(.updateUsage(Usage(input: input, output: output, metadata: metadata)))
            }
        }
    }

    /// A change to the tool-calls entry.
    public struct ToolCalls: Sendable {
        /// The id of the entry; nil for the one the session makes.
        public var entryID: String?
        /// The action to perform.
        public var action: Action

        /// An operation on a tool-calls entry.
        public struct Action: Sendable {
            package enum Kind: Sendable {
                case toolCall(ToolCall)
                case removeToolCall(id: String)
                case updateMetadata([String: GeneratedContent])
                case updateUsage(Usage)
            }

            package let kind: Kind

            package init(_ kind: Kind) {
                self.kind = kind
            }

            /// Applies `action` to the call `id` (made on its first event) of the tool `name`.
            public static func toolCall(id: String, name: String, action: ToolCall.Action) -> Action {
                Action(.toolCall(ToolCall(id: id, name: name, action: action)))
            }

            /// Removes a call the model retracted.
            public static func removeToolCall(id: String) -> Action {
                Action(.removeToolCall(id: id))
            }

            /// Replaces the entry's metadata.
            public static func updateMetadata(_ values: [String: any ConvertibleToGeneratedContent]) -> Action {
                Action(.updateMetadata(values.mapValues(\.generatedContent)))
            }

            /// Replaces the entry's token-usage totals.
            public static func updateUsage(
                input: Usage.Input, output: Usage.Output, metadata: [String: any ConvertibleToGeneratedContent] = [:]
            ) -> Action {
                Action(.updateUsage(Usage(input: input, output: output, metadata: metadata)))
            }
        }

        /// A change to one call.
        public struct ToolCall: Sendable {
            /// The call's id.
            public var id: String
            /// The tool called.
            public var name: String
            /// The change.
            public var action: Action

            /// An operation on a tool call.
            public struct Action: Sendable {
                package enum Kind: Sendable {
                    case appendArguments(String, tokenCount: Int)
                    case updateMetadata([String: GeneratedContent])
                }

                package let kind: Kind

                package init(_ kind: Kind) {
                    self.kind = kind
                }

                /// Appends to the call's arguments, JSON text streamed in pieces.
                public static func appendArguments(_ content: String, tokenCount: Int) -> Action {
                    Action(.appendArguments(content, tokenCount: tokenCount))
                }

                /// Replaces the call's metadata.
                public static func updateMetadata(_ values: [String: any ConvertibleToGeneratedContent]) -> Action {
                    Action(.updateMetadata(values.mapValues(\.generatedContent)))
                }
            }
        }
    }
}
