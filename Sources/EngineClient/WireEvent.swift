import Foundation
import FoundationModels

/// A channel event as it travels.
package struct WireEvent: Codable, Sendable {
    var kind: String
    var entryID: String?
    var action: String
    var text: String?
    var segmentID: String?
    var tokenCount: Int?
    var callID: String?
    var callName: String?
    var usage: [Int]?
    var metadata: MetadataRecord?
    var segment: SegmentRecord?
    var removedID: String?
    var signature: Data?

    private init(kind: String, entryID: String?, action: String) {
        self.kind = kind
        self.entryID = entryID
        self.action = action
    }

    /// The wire form of `event`; nil for one that cannot travel (an app's custom segment).
    package init?(_ event: LanguageModelExecutorGenerationChannel.Event) {
        switch event.payload {
        case .response(let response):
            self.init(kind: "response", entryID: response.entryID, action: "")
            switch response.action.kind {
            case .appendText(let fragment):
                setText("appendText", fragment.content, fragment.segmentID, fragment.tokenCount)
            case .replaceTextSegment(let fragment):
                setText("replaceTextSegment", fragment.content, fragment.segmentID, fragment.tokenCount)
            case .updateCustomSegment: return nil
            case .addAttachmentSegment(let segment):
                action = "addAttachmentSegment"
                self.segment = SegmentRecord(.attachment(segment))
            case .removeAttachmentSegment(let id):
                action = "removeAttachmentSegment"
                removedID = id
            case .updateMetadata(let metadata): setMetadata(metadata)
            case .updateUsage(let usage): setUsage(usage)
            }
        case .toolCalls(let calls):
            self.init(kind: "toolCalls", entryID: calls.entryID, action: "")
            switch calls.action.kind {
            case .toolCall(let call):
                callID = call.id
                callName = call.name
                switch call.action.kind {
                case .appendArguments(let content, let tokenCount):
                    setText("appendArguments", content, nil, tokenCount)
                case .updateMetadata(let metadata):
                    setMetadata(metadata)
                    action = "updateCallMetadata"
                }
            case .removeToolCall(let id):
                action = "removeToolCall"
                removedID = id
            case .updateMetadata(let metadata): setMetadata(metadata)
            case .updateUsage(let usage): setUsage(usage)
            }
        case .reasoning(let reasoning):
            self.init(kind: "reasoning", entryID: reasoning.entryID, action: "")
            switch reasoning.action.kind {
            case .appendText(let fragment):
                setText("appendText", fragment.content, fragment.segmentID, fragment.tokenCount)
            case .replaceTextSegment(let fragment):
                setText("replaceTextSegment", fragment.content, fragment.segmentID, fragment.tokenCount)
            case .updateSignature(let signature, let tokenCount):
                action = "updateSignature"
                self.signature = signature
                self.tokenCount = tokenCount
            case .updateMetadata(let metadata): setMetadata(metadata)
            case .updateUsage(let usage): setUsage(usage)
            }
        }
    }

    private mutating func setText(_ action: String, _ text: String, _ segmentID: String?, _ tokenCount: Int) {
        self.action = action
        self.text = text
        self.segmentID = segmentID
        self.tokenCount = tokenCount
    }

    private mutating func setMetadata(_ metadata: [String: GeneratedContent]) {
        action = "updateMetadata"
        self.metadata = MetadataRecord(metadata)
    }

    private mutating func setUsage(_ usage: LanguageModelExecutorGenerationChannel.Usage) {
        action = "updateUsage"
        self.usage = [
            usage.input.totalTokenCount, usage.input.cachedTokenCount, usage.output.totalTokenCount,
            usage.output.reasoningTokenCount,
        ]
        metadata = MetadataRecord(usage.metadata)
    }

    /// The event again.
    ///
    /// - Throws: `DecodingError` for a kind or action this version does not know.
    package func event() throws -> LanguageModelExecutorGenerationChannel.Event {
        typealias Event = LanguageModelExecutorGenerationChannel.Event
        let text = self.text ?? ""
        let tokens = tokenCount ?? 0
        let metadata = try self.metadata?.metadata() ?? [:]
        let counts = self.usage.flatMap { $0.count == 4 ? $0 : nil }
        let input = counts.map {
            LanguageModelExecutorGenerationChannel.Usage.Input(totalTokenCount: $0[0], cachedTokenCount: $0[1])
        }
        let output = counts.map {
            LanguageModelExecutorGenerationChannel.Usage.Output(totalTokenCount: $0[2], reasoningTokenCount: $0[3])
        }
        switch (kind, action) {
        case ("response", "appendText"):
            return .response(entryID: entryID, action: .appendText(text, segmentID: segmentID, tokenCount: tokens))
        case ("response", "replaceTextSegment"):
            return .response(
                entryID: entryID, action: .replaceTextSegment(text, segmentID: segmentID, tokenCount: tokens))
        case ("response", "addAttachmentSegment"):
            guard case .attachment(let attachment)? = try segment?.segment() else { break }
            return .response(entryID: entryID, action: .addAttachmentSegment(attachment))
        case ("response", "removeAttachmentSegment"):
            return .response(entryID: entryID, action: .removeAttachmentSegment(id: removedID ?? ""))
        case ("response", "updateMetadata"):
            return .response(entryID: entryID, action: .updateMetadata(metadata))
        case ("response", "updateUsage"):
            guard let input, let output else { break }
            return .response(entryID: entryID, action: .updateUsage(input: input, output: output, metadata: metadata))
        case ("toolCalls", "appendArguments"):
            return .toolCalls(
                entryID: entryID,
                action: .toolCall(
                    id: callID ?? "", name: callName ?? "", action: .appendArguments(text, tokenCount: tokens)))
        case ("toolCalls", "updateCallMetadata"):
            return .toolCalls(
                entryID: entryID,
                action: .toolCall(id: callID ?? "", name: callName ?? "", action: .updateMetadata(metadata)))
        case ("toolCalls", "removeToolCall"):
            return .toolCalls(entryID: entryID, action: .removeToolCall(id: removedID ?? ""))
        case ("toolCalls", "updateMetadata"):
            return .toolCalls(entryID: entryID, action: .updateMetadata(metadata))
        case ("toolCalls", "updateUsage"):
            guard let input, let output else { break }
            return .toolCalls(entryID: entryID, action: .updateUsage(input: input, output: output, metadata: metadata))
        case ("reasoning", "appendText"):
            return .reasoning(entryID: entryID, action: .appendText(text, segmentID: segmentID, tokenCount: tokens))
        case ("reasoning", "replaceTextSegment"):
            return .reasoning(
                entryID: entryID, action: .replaceTextSegment(text, segmentID: segmentID, tokenCount: tokens))
        case ("reasoning", "updateSignature"):
            return .reasoning(entryID: entryID, action: .updateSignature(signature ?? Data(), tokenCount: tokens))
        case ("reasoning", "updateMetadata"):
            return .reasoning(entryID: entryID, action: .updateMetadata(metadata))
        case ("reasoning", "updateUsage"):
            guard let input, let output else { break }
            return .reasoning(entryID: entryID, action: .updateUsage(input: input, output: output, metadata: metadata))
        default:
            break
        }
        throw DecodingError.dataCorrupted(
            .init(codingPath: [], debugDescription: "unknown engine event \(kind).\(action)"))
    }
}

/// An error as it travels: the family and case the client throws again, with its details.
package struct WireError: Codable, Sendable, Error {
    var family: String
    var name: String
    var debugDescription: String
    var capability: String?
    var contextSize: Int?
    var tokenCount: Int?
    var entries: Transcript?
    var explanation: String?

    package init(_ error: any Swift.Error) {
        capability = nil
        switch error {
        case let error as LanguageModelSession.GenerationError:
            family = "generation"
            name = error.caseName
            debugDescription = error.context.debugDescription
            if case .refusal(let refusal, _) = error { entries = Transcript(entries: refusal.transcriptEntries) }
        case let error as LanguageModelError:
            family = "languageModel"
            name = error.caseName
            debugDescription = error.detail
            switch error {
            case .unsupportedCapability(let payload): capability = payload.capability.description
            case .contextSizeExceeded(let payload):
                (contextSize, tokenCount) = (payload.contextSize, payload.tokenCount)
            case .unsupportedTranscriptContent(let payload): entries = Transcript(entries: payload.unsupportedContent)
            case .refusal(let payload): explanation = payload.explanationText
            default: break
            }
        case is CancellationError:
            family = "cancelled"
            name = "cancelled"
            debugDescription = "cancelled"
        default:
            family = "other"
            name = String(describing: type(of: error))
            debugDescription = String(describing: error)
        }
    }

    /// The error to throw in the client.
    package var error: any Swift.Error {
        let context = LanguageModelSession.GenerationError.Context(debugDescription: debugDescription)
        switch (family, name) {
        case ("cancelled", _): return CancellationError()
        case ("generation", "exceededContextWindowSize"):
            return LanguageModelSession.GenerationError.exceededContextWindowSize(context)
        case ("generation", "assetsUnavailable"): return LanguageModelSession.GenerationError.assetsUnavailable(context)
        case ("generation", "guardrailViolation"):
            return LanguageModelSession.GenerationError.guardrailViolation(context)
        case ("generation", "unsupportedGuide"): return LanguageModelSession.GenerationError.unsupportedGuide(context)
        case ("generation", "unsupportedLanguageOrLocale"):
            return LanguageModelSession.GenerationError.unsupportedLanguageOrLocale(context)
        case ("generation", "decodingFailure"): return LanguageModelSession.GenerationError.decodingFailure(context)
        case ("generation", "rateLimited"): return LanguageModelSession.GenerationError.rateLimited(context)
        case ("generation", "concurrentRequests"):
            return LanguageModelSession.GenerationError.concurrentRequests(context)
        case ("generation", "refusal"):
            return LanguageModelSession.GenerationError.refusal(
                .init(transcriptEntries: entries.map(Array.init) ?? []), context)
        case ("languageModel", "unsupportedCapability"):
            let capabilities: [LanguageModelCapabilities.Capability] = [
                .vision, .guidedGeneration, .reasoning, .toolCalling,
            ]
            let capability = capabilities.first { $0.description == self.capability } ?? .vision
            return LanguageModelError.unsupportedCapability(
                .init(capability: capability, debugDescription: debugDescription))
        case ("languageModel", "unsupportedTranscriptContent"):
            return LanguageModelError.unsupportedTranscriptContent(
                .init(unsupportedContent: entries.map(Array.init) ?? [], debugDescription: debugDescription))
        case ("languageModel", "contextSizeExceeded"):
            return LanguageModelError.contextSizeExceeded(
                .init(contextSize: contextSize ?? 0, tokenCount: tokenCount ?? 0, debugDescription: debugDescription))
        case ("languageModel", "timeout"): return LanguageModelError.timeout(.init(debugDescription: debugDescription))
        case ("languageModel", "refusal"):
            return LanguageModelError.refusal(
                .init(explanation: explanation ?? "", debugDescription: debugDescription))
        default:
            return LanguageModelSession.GenerationError.decodingFailure(
                .init(debugDescription: "The engine service failed (\(name)): \(debugDescription)"))
        }
    }
}
