import Foundation

/// Builds one model turn from the events an executor sends: the response's text segments (or
/// tool calls, or reasoning), its metadata and its usage. A state machine without I/O: the
/// session feeds it events and reads what it built.
package struct TurnAccumulator {
    /// A text change the session passes on to a stream.
    package enum TextChange: Equatable {
        /// Text added to the response.
        case appended(String, tokenCount: Int)
        /// The response's text is now this (a segment was replaced).
        case replaced(String, tokenCount: Int)
    }

    private struct TextSegment {
        var id: String
        var text: String
    }

    private struct Call {
        var id: String
        var name: String
        var arguments = ""
        var metadata: [String: GeneratedContent] = [:]
    }

    /// The response entry's id (the executor's, or a new one).
    private var responseID: String?
    private var responseSegments: [Transcript.Segment] = []
    private var texts: [TextSegment] = []
    private var responseMetadata: [String: GeneratedContent] = [:]
    private var callsID: String?
    private var calls: [Call] = []
    private var callsMetadata: [String: GeneratedContent] = [:]
    private var reasoningID: String?
    private var reasoning: [TextSegment] = []
    private var reasoningSignature: Data?
    private var reasoningMetadata: [String: GeneratedContent] = [:]

    /// The last usage the executor reported, if it did.
    private var reportedUsage: LanguageModelExecutorGenerationChannel.Usage?
    /// Tokens counted from fragments (used when the executor reports no usage).
    private var fragmentTokens = 0
    private var reasoningTokens = 0

    package init() {}

    /// Applies one event; returns the change to the response text, if any.
    package mutating func apply(_ event: LanguageModelExecutorGenerationChannel.Event) -> TextChange? {
        switch event.payload {
        case .response(let response):
            if responseID == nil { responseID = response.entryID }
            return apply(response.action)
        case .toolCalls(let calls):
            if callsID == nil { callsID = calls.entryID }
            apply(calls.action)
        case .reasoning(let reasoning):
            if reasoningID == nil { reasoningID = reasoning.entryID }
            apply(reasoning.action)
        }
        return nil
    }

    private mutating func apply(_ action: LanguageModelExecutorGenerationChannel.Response.Action) -> TextChange? {
        switch action.kind {
        case .appendText(let fragment):
            fragmentTokens += fragment.tokenCount
            Self.append(fragment.content, to: fragment.segmentID, in: &texts, segments: &responseSegments)
            return .appended(fragment.content, tokenCount: fragment.tokenCount)
        case .replaceTextSegment(let replacement):
            fragmentTokens += replacement.tokenCount
            Self.replace(replacement.content, in: replacement.segmentID, texts: &texts, segments: &responseSegments)
            return .replaced(text, tokenCount: replacement.tokenCount)
        case .updateCustomSegment(let segment):
            if let index = responseSegments.firstIndex(where: { $0.id == segment.id }) {
                responseSegments[index] = .custom(segment)
            } else {
                responseSegments.append(.custom(segment))
            }
        case .addAttachmentSegment(let segment):
            responseSegments.append(.attachment(segment))
        case .removeAttachmentSegment(let id):
            responseSegments.removeAll { $0.id == id }
        case .updateMetadata(let metadata):
            responseMetadata = metadata
        case .updateUsage(let usage):
            reportedUsage = usage
        }
        return nil
    }

    private mutating func apply(_ action: LanguageModelExecutorGenerationChannel.ToolCalls.Action) {
        switch action.kind {
        case .toolCall(let change):
            let index =
                calls.firstIndex { $0.id == change.id }
                ?? {
                    calls.append(Call(id: change.id, name: change.name))
                    return calls.count - 1
                }()
            switch change.action.kind {
            case .appendArguments(let content, let tokenCount):
                calls[index].arguments += content
                fragmentTokens += tokenCount
            case .updateMetadata(let metadata):
                calls[index].metadata = metadata
            }
        case .removeToolCall(let id):
            calls.removeAll { $0.id == id }
        case .updateMetadata(let metadata):
            callsMetadata = metadata
        case .updateUsage(let usage):
            reportedUsage = usage
        }
    }

    private mutating func apply(_ action: LanguageModelExecutorGenerationChannel.Reasoning.Action) {
        var ignored: [Transcript.Segment] = []
        switch action.kind {
        case .appendText(let fragment):
            reasoningTokens += fragment.tokenCount
            Self.append(fragment.content, to: fragment.segmentID, in: &reasoning, segments: &ignored)
        case .replaceTextSegment(let replacement):
            reasoningTokens += replacement.tokenCount
            Self.replace(replacement.content, in: replacement.segmentID, texts: &reasoning, segments: &ignored)
        case .updateSignature(let signature, let tokenCount):
            reasoningSignature = signature
            reasoningTokens += tokenCount
        case .updateMetadata(let metadata):
            reasoningMetadata = metadata
        case .updateUsage(let usage):
            reportedUsage = usage
        }
    }

    // MARK: Text segments

    private static func append(
        _ text: String, to segmentID: String?, in texts: inout [TextSegment], segments: inout [Transcript.Segment]
    ) {
        if let segmentID, let index = texts.firstIndex(where: { $0.id == segmentID }) {
            texts[index].text += text
        } else if segmentID == nil, !texts.isEmpty {
            texts[texts.count - 1].text += text
        } else {
            let segment = TextSegment(id: segmentID ?? UUID().uuidString, text: text)
            texts.append(segment)
            segments.append(.text(Transcript.TextSegment(id: segment.id, content: "")))
        }
    }

    private static func replace(
        _ text: String, in segmentID: String?, texts: inout [TextSegment], segments: inout [Transcript.Segment]
    ) {
        let index = segmentID.flatMap { id in texts.firstIndex { $0.id == id } } ?? texts.indices.last
        if let index {
            texts[index].text = text
        } else {
            append(text, to: segmentID, in: &texts, segments: &segments)
        }
    }

    // MARK: What the turn made

    /// The response's text: its text segments, joined.
    package var text: String { texts.map(\.text).joined() }

    /// Whether the turn called tools.
    package var madeToolCalls: Bool { !calls.isEmpty }

    /// The turn's tool calls, their arguments parsed.
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/decodingFailure(_:)`` when a call's
    ///   arguments are not a complete JSON value.
    package func toolCalls() throws -> Transcript.ToolCalls {
        let parsed = try calls.map { call -> Transcript.ToolCall in
            let arguments = call.arguments.isEmpty ? "{}" : call.arguments
            let content = try GeneratedContent(json: arguments + "\n")
            guard content.isComplete else {
                throw LanguageModelSession.GenerationError.decodingFailure(
                    .init(debugDescription: "The arguments of the call of '\(call.name)' are cut off: \(arguments)"))
            }
            return Transcript.ToolCall(id: call.id, metadata: call.metadata, toolName: call.name, arguments: content)
        }
        return Transcript.ToolCalls(id: callsID ?? UUID().uuidString, parsed)
    }

    /// The reasoning entry, if the executor sent reasoning.
    package var reasoningEntry: Transcript.Entry? {
        guard !reasoning.isEmpty || reasoningSignature != nil else { return nil }
        return .reasoning(
            Transcript.Reasoning(
                id: reasoningID ?? UUID().uuidString, metadata: reasoningMetadata,
                segments: reasoning.map { .text(Transcript.TextSegment(id: $0.id, content: $0.text)) },
                signature: reasoningSignature))
    }

    /// The response entry, its text segments replaced by `structure` when the response is
    /// structured.
    package func responseEntry(structure: Transcript.StructuredSegment? = nil) -> Transcript.Response {
        var segments: [Transcript.Segment] = []
        var placedStructure = false
        for segment in responseSegments {
            guard case .text(let placeholder) = segment, let text = texts.first(where: { $0.id == placeholder.id })
            else {
                segments.append(segment)
                continue
            }
            if let structure {
                if !placedStructure { segments.append(.structure(structure)) }
                placedStructure = true
            } else {
                segments.append(.text(Transcript.TextSegment(id: text.id, content: text.text)))
            }
        }
        if let structure, !placedStructure { segments.append(.structure(structure)) }
        return Transcript.Response(id: responseID ?? UUID().uuidString, metadata: responseMetadata, segments: segments)
    }

    /// Whether the turn produced anything for a response entry.
    package var hasResponse: Bool { !responseSegments.isEmpty }

    /// The turn's usage: what the executor reported, else the tokens its fragments counted.
    package var usage: LanguageModelSession.Usage {
        if let reportedUsage {
            return LanguageModelSession.Usage(
                input: .init(
                    totalTokenCount: reportedUsage.input.totalTokenCount,
                    cachedTokenCount: reportedUsage.input.cachedTokenCount),
                output: .init(
                    totalTokenCount: reportedUsage.output.totalTokenCount,
                    reasoningTokenCount: reportedUsage.output.reasoningTokenCount),
                metadata: reportedUsage.metadata)
        }
        return LanguageModelSession.Usage(
            input: .init(totalTokenCount: 0, cachedTokenCount: 0),
            output: .init(totalTokenCount: fragmentTokens + reasoningTokens, reasoningTokenCount: reasoningTokens))
    }
}
