import Foundation
import FoundationModels

/// What a client asks the engine service, one request per connection.
package struct EngineRequestMessage: Codable, Sendable {
    package enum Kind: String, Codable, Sendable {
        /// Generate one turn; the service answers with `info`, events, then `done` or `failure`.
        case respond
        /// Load the model and read a transcript ahead; answered with `info` then `done`.
        case prewarm
        /// Count tokens; answered with `info` then `tokenCount` (or `failure`).
        case tokenCount
        /// Stop the request on this connection (closing the connection does the same).
        case cancel
    }

    /// The protocol's version: a service refuses others.
    package static let currentVersion = 1

    package var version = EngineRequestMessage.currentVersion
    package var kind: Kind
    package var target: SystemModelTarget?
    package var request: WireRequest?
    package var transcript: Transcript?
    package var subject: WireTokenCountSubject?

    package init(
        kind: Kind, target: SystemModelTarget? = nil, request: WireRequest? = nil, transcript: Transcript? = nil,
        subject: WireTokenCountSubject? = nil
    ) {
        self.kind = kind
        self.target = target
        self.request = request
        self.transcript = transcript
        self.subject = subject
    }
}

/// What the service sends back.
package struct EngineReplyMessage: Codable, Sendable {
    package enum Kind: String, Codable, Sendable {
        case info, state, event, done, failure, tokenCount
    }

    package var kind: Kind
    package var contextSize: Int?
    package var state: EngineModelState?
    package var event: WireEvent?
    package var error: WireError?
    package var count: Int?

    package init(
        kind: Kind, contextSize: Int? = nil, state: EngineModelState? = nil, event: WireEvent? = nil,
        error: WireError? = nil, count: Int? = nil
    ) {
        self.kind = kind
        self.contextSize = contextSize
        self.state = state
        self.event = event
        self.error = error
        self.count = count
    }
}

/// An executor request as it travels.
package struct WireRequest: Codable, Sendable {
    var id: UUID
    var transcript: Transcript
    var tools: [ToolRecord]
    var schema: GenerationSchema?
    var options: OptionsRecord
    var contextOptions: ContextOptionsRecord
    var metadata: MetadataRecord?

    /// `request`, with its images read into the transcript (the service may not see the
    /// client's files).
    ///
    /// - Throws: ``LanguageModelError/unsupportedTranscriptContent(_:)`` for an image that
    ///   cannot be read or is too large.
    package init(_ request: LanguageModelExecutorGenerationRequest) throws {
        id = request.id
        transcript = try request.transcript.withImagesRead()
        tools = request.enabledToolDefinitions.map(ToolRecord.init)
        schema = request.schema
        options = OptionsRecord(request.generationOptions)
        contextOptions = ContextOptionsRecord(request.contextOptions)
        metadata = MetadataRecord(request.metadata)
    }

    /// The request again.
    ///
    /// - Throws: `DecodingError` when a metadata value is not the JSON it was written as.
    package func request() throws -> LanguageModelExecutorGenerationRequest {
        LanguageModelExecutorGenerationRequest(
            id: id, transcript: transcript, enabledTools: tools.map(\.definition), schema: schema,
            generationOptions: options.options, contextOptions: contextOptions.options,
            metadata: try metadata?.metadata() ?? [:])
    }
}

/// A token-count question as it travels.
package struct WireTokenCountSubject: Codable, Sendable {
    var segments: [SegmentRecord]?
    var tools: [ToolRecord]?
    var schema: GenerationSchema?
    var transcript: Transcript?

    package init(_ subject: TokenCountSubject) throws {
        switch subject {
        case .segments(let segments):
            self.segments = try segments.map { try SegmentRecord($0.withImageRead()) }
        case .tools(let tools): self.tools = tools.map(ToolRecord.init)
        case .schema(let schema): self.schema = schema
        case .transcript(let transcript): self.transcript = try transcript.withImagesRead()
        }
    }

    package func subject() throws -> TokenCountSubject {
        if let segments { return .segments(try segments.map { try $0.segment() }) }
        if let tools { return .tools(tools.map(\.definition)) }
        if let schema { return .schema(schema) }
        return .transcript(transcript ?? Transcript())
    }
}

extension Transcript {
    /// The transcript with every image file read into its attachment.
    package func withImagesRead() throws -> Transcript {
        guard contains(where: \.hasAttachment) else { return self }
        return Transcript(entries: try entries.map { try $0.withImagesRead() })
    }
}

extension Transcript.Entry {
    fileprivate func withImagesRead() throws -> Transcript.Entry {
        switch self {
        case .instructions(var entry):
            entry.segments = try entry.segments.map { try $0.withImageRead() }
            return .instructions(entry)
        case .prompt(var entry):
            entry.segments = try entry.segments.map { try $0.withImageRead() }
            return .prompt(entry)
        case .toolOutput(var entry):
            entry.segments = try entry.segments.map { try $0.withImageRead() }
            return .toolOutput(entry)
        case .response(var entry):
            entry.segments = try entry.segments.map { try $0.withImageRead() }
            return .response(entry)
        case .toolCalls, .reasoning:
            return self
        }
    }
}

extension Transcript.Segment {
    fileprivate func withImageRead() throws -> Transcript.Segment {
        guard case .attachment(var attachment) = self, case .image(let image) = attachment.content,
            image.data == nil
        else { return self }
        attachment.content = .image(try image.withEncodedBytes())
        return .attachment(attachment)
    }
}
