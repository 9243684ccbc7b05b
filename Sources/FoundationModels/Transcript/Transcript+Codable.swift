import Foundation

// Transcript's Codable form. Apple's format is private, so this one is Sotto's own: each entry
// is an object with a "type" ("instructions", "prompt", "toolCalls", "toolOutput", "response",
// "reasoning") and its fields; structured values and schemas are stored as JSON, images as their
// file URL or their bytes (base64). Metadata is kept when its values are strings, numbers or
// Booleans; a custom segment is stored as its text (its type cannot be known when decoding).

extension Transcript: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let records = try container.decode([EntryRecord].self)
        entries = try records.map { try $0.entry() }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(entries.map(EntryRecord.init))
    }
}

package struct SegmentRecord: Codable, Sendable {
    var id: String
    var text: String?
    var source: String?
    var json: String?
    var imageURL: String?
    var imageData: Data?
    var orientation: UInt32?
    var label: String?

    package init(_ segment: Transcript.Segment) {
        id = segment.id
        switch segment {
        case .text(let text):
            self.text = text.content
        case .structure(let structure):
            source = structure.source
            json = structure.content.jsonString
        case .attachment(let attachment):
            label = attachment.label
            switch attachment.content {
            case .image(let image):
                orientation = image.orientation == .up ? nil : image.orientation.rawValue
                switch image.source {
                case .file(let url): imageURL = url.absoluteString
                case .data(let data): imageData = data
                }
            }
        case .custom(let custom):
            text = custom.description
        }
    }

    package func segment() throws -> Transcript.Segment {
        if let json {
            return .structure(
                Transcript.StructuredSegment(id: id, source: source ?? "", content: try GeneratedContent(json: json)))
        }
        let orientation = self.orientation.flatMap(CGImagePropertyOrientation.init(rawValue:))
        if let imageData {
            return .attachment(
                .init(id: id, content: .image(.init(imageData: imageData, orientation: orientation)), label: label))
        }
        if let imageURL {
            guard let url = URL(string: imageURL) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: [], debugDescription: "segment \(id): '\(imageURL)' is not a URL"))
            }
            return .attachment(
                .init(id: id, content: .image(.init(imageURL: url, orientation: orientation)), label: label))
        }
        return .text(Transcript.TextSegment(id: id, content: text ?? ""))
    }
}

/// Options as stored: the sampling mode spelled out.
package struct OptionsRecord: Codable, Sendable {
    var sampling: String?
    var topK: Int?
    var probabilityThreshold: Double?
    var seed: UInt64?
    var temperature: Double?
    var maximumResponseTokens: Int?
    var toolCalling: String?

    package init(_ options: GenerationOptions) {
        temperature = options.temperature
        maximumResponseTokens = options.maximumResponseTokens
        switch options.sampling?.kind {
        case .greedy?: sampling = "greedy"
        case .randomTopK(let k, let seed)?: (sampling, topK, self.seed) = ("top", k, seed)
        case .randomProbabilityThreshold(let threshold, let seed)?:
            (sampling, probabilityThreshold, self.seed) = ("nucleus", threshold, seed)
        case nil: break
        }
        switch options.toolCallingMode?.kind {
        case .allowed?: toolCalling = "allowed"
        case .required?: toolCalling = "required"
        case .disallowed?: toolCalling = "disallowed"
        case nil: break
        }
    }

    package var options: GenerationOptions {
        var mode: GenerationOptions.SamplingMode?
        switch sampling {
        case "greedy": mode = .greedy
        case "top": mode = .random(top: topK ?? 1, seed: seed)
        case "nucleus": mode = .random(probabilityThreshold: probabilityThreshold ?? 1, seed: seed)
        default: mode = nil
        }
        var options = GenerationOptions(
            samplingMode: mode, temperature: temperature, maximumResponseTokens: maximumResponseTokens)
        switch toolCalling {
        case "allowed": options.toolCallingMode = .allowed
        case "required": options.toolCallingMode = .required
        case "disallowed": options.toolCallingMode = .disallowed
        default: break
        }
        return options
    }
}

/// Context options as stored.
package struct ContextOptionsRecord: Codable, Sendable {
    var includeSchemaInPrompt: Bool?
    var reasoningLevel: String?

    package init(_ options: ContextOptions) {
        includeSchemaInPrompt = options.includeSchemaInPrompt
        switch options.reasoningLevel {
        case .light?: reasoningLevel = "light"
        case .moderate?: reasoningLevel = "moderate"
        case .deep?: reasoningLevel = "deep"
        case .custom(let name)?: reasoningLevel = "custom:" + name
        case nil: break
        }
    }

    package var options: ContextOptions {
        let level: ContextOptions.ReasoningLevel? =
            switch reasoningLevel {
            case nil: nil
            case "light": .light
            case "moderate": .moderate
            case "deep": .deep
            case let name?: .custom(name.hasPrefix("custom:") ? String(name.dropFirst(7)) : name)
            }
        return ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt, reasoningLevel: level)
    }
}

package struct ToolRecord: Codable, Sendable {
    var name: String
    var description: String
    var parameters: GenerationSchema

    package init(_ definition: Transcript.ToolDefinition) {
        name = definition.name
        description = definition.description
        parameters = definition.parameters
    }

    package var definition: Transcript.ToolDefinition {
        Transcript.ToolDefinition(name: name, description: description, parameters: parameters)
    }
}

private struct CallRecord: Codable {
    var id: String
    var toolName: String
    var arguments: String
    var metadata: MetadataRecord?
}

/// Metadata as stored: each value as the JSON of its generated content.
package struct MetadataRecord: Codable, Sendable {
    private var values: [String: String]

    package init?(_ metadata: [String: GeneratedContent]) {
        guard !metadata.isEmpty else { return nil }
        values = metadata.mapValues(\.jsonString)
    }

    package func metadata() throws -> [String: GeneratedContent] {
        try values.mapValues { try GeneratedContent(json: $0) }
    }
}

private struct EntryRecord: Codable {
    var type: String
    var id: String
    var segments: [SegmentRecord]?
    var tools: [ToolRecord]?
    var options: OptionsRecord?
    var contextOptions: ContextOptionsRecord?
    var responseFormatName: String?
    var responseFormatSchema: GenerationSchema?
    var calls: [CallRecord]?
    var toolName: String?
    var assetIDs: [String]?
    var signature: Data?
    var metadata: MetadataRecord?

    init(_ entry: Transcript.Entry) {
        id = entry.id
        switch entry {
        case .instructions(let instructions):
            type = "instructions"
            segments = instructions.segments.map(SegmentRecord.init)
            tools = instructions.toolDefinitions.map(ToolRecord.init)
        case .prompt(let prompt):
            type = "prompt"
            segments = prompt.segments.map(SegmentRecord.init)
            options = OptionsRecord(prompt.options)
            if prompt.contextOptions != ContextOptions() {
                contextOptions = ContextOptionsRecord(prompt.contextOptions)
            }
            responseFormatName = prompt.responseFormat?.name
            responseFormatSchema = prompt.responseFormat?.schema
            metadata = MetadataRecord(prompt.metadata)
        case .toolCalls(let calls):
            type = "toolCalls"
            self.calls = calls.map {
                CallRecord(
                    id: $0.id, toolName: $0.toolName, arguments: $0.arguments.jsonString,
                    metadata: MetadataRecord($0.metadata))
            }
        case .toolOutput(let output):
            type = "toolOutput"
            toolName = output.toolName
            segments = output.segments.map(SegmentRecord.init)
        case .response(let response):
            type = "response"
            assetIDs = response.assetIDs
            segments = response.segments.map(SegmentRecord.init)
            metadata = MetadataRecord(response.metadata)
        case .reasoning(let reasoning):
            type = "reasoning"
            segments = reasoning.segments.map(SegmentRecord.init)
            signature = reasoning.signature
            metadata = MetadataRecord(reasoning.metadata)
        }
    }

    func entry() throws -> Transcript.Entry {
        let segments = try (self.segments ?? []).map { try $0.segment() }
        let metadata = try self.metadata?.metadata() ?? [:]
        switch type {
        case "instructions":
            let definitions = (tools ?? []).map(\.definition)
            return .instructions(Transcript.Instructions(id: id, segments: segments, toolDefinitions: definitions))
        case "prompt":
            let format = responseFormatSchema.map {
                Transcript.ResponseFormat(schema: $0, name: responseFormatName ?? "GeneratedContent")
            }
            return .prompt(
                Transcript.Prompt(
                    id: id, metadata: metadata, segments: segments, options: options?.options ?? GenerationOptions(),
                    responseFormat: format, contextOptions: contextOptions?.options ?? ContextOptions()))
        case "toolCalls":
            let calls = try (self.calls ?? []).map {
                Transcript.ToolCall(
                    id: $0.id, metadata: try $0.metadata?.metadata() ?? [:], toolName: $0.toolName,
                    arguments: try GeneratedContent(json: $0.arguments))
            }
            return .toolCalls(Transcript.ToolCalls(id: id, calls))
        case "toolOutput":
            return .toolOutput(Transcript.ToolOutput(id: id, toolName: toolName ?? "", segments: segments))
        case "response":
            var response = Transcript.Response(id: id, assetIDs: assetIDs ?? [], segments: segments)
            response.metadata = metadata
            return .response(response)
        case "reasoning":
            return .reasoning(
                Transcript.Reasoning(id: id, metadata: metadata, segments: segments, signature: signature))
        default:
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "unknown transcript entry type '\(type)' (entry \(id))"))
        }
    }
}
