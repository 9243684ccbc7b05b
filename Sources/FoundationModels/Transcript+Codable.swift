// Transcript's Codable form. Apple's format is private, so this one is Sotto's own: each entry
// is an object with a "type" ("instructions", "prompt", "toolCalls", "toolOutput", "response")
// and its fields; structured values and schemas are stored as JSON.

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

private struct SegmentRecord: Codable {
    var id: String
    var text: String?
    var source: String?
    var json: String?

    init(_ segment: Transcript.Segment) {
        switch segment {
        case .text(let text):
            id = text.id
            self.text = text.content
        case .structure(let structure):
            id = structure.id
            source = structure.source
            json = structure.content.jsonString
        }
    }

    func segment() throws -> Transcript.Segment {
        if let json {
            return .structure(
                Transcript.StructuredSegment(id: id, source: source ?? "", content: try GeneratedContent(json: json)))
        }
        return .text(Transcript.TextSegment(id: id, content: text ?? ""))
    }
}

private struct OptionsRecord: Codable {
    var sampling: String?
    var topK: Int?
    var probabilityThreshold: Double?
    var seed: UInt64?
    var temperature: Double?
    var maximumResponseTokens: Int?

    init(_ options: GenerationOptions) {
        temperature = options.temperature
        maximumResponseTokens = options.maximumResponseTokens
        switch options.sampling?.kind {
        case .greedy?: sampling = "greedy"
        case .top(let k, let seed)?: (sampling, topK, self.seed) = ("top", k, seed)
        case .nucleus(let threshold, let seed)?:
            (sampling, probabilityThreshold, self.seed) = ("nucleus", threshold, seed)
        case nil: break
        }
    }

    var options: GenerationOptions {
        var mode: GenerationOptions.SamplingMode?
        switch sampling {
        case "greedy": mode = .greedy
        case "top": mode = .random(top: topK ?? 1, seed: seed)
        case "nucleus": mode = .random(probabilityThreshold: probabilityThreshold ?? 1, seed: seed)
        default: mode = nil
        }
        return GenerationOptions(sampling: mode, temperature: temperature, maximumResponseTokens: maximumResponseTokens)
    }
}

private struct ToolRecord: Codable {
    var name: String
    var description: String
    var parameters: GenerationSchema
}

private struct CallRecord: Codable {
    var id: String
    var toolName: String
    var arguments: String
}

private struct EntryRecord: Codable {
    var type: String
    var id: String
    var segments: [SegmentRecord]?
    var tools: [ToolRecord]?
    var options: OptionsRecord?
    var responseFormatName: String?
    var responseFormatSchema: GenerationSchema?
    var calls: [CallRecord]?
    var toolName: String?
    var assetIDs: [String]?

    init(_ entry: Transcript.Entry) {
        id = entry.id
        switch entry {
        case .instructions(let instructions):
            type = "instructions"
            segments = instructions.segments.map(SegmentRecord.init)
            tools = instructions.toolDefinitions.map {
                ToolRecord(name: $0.name, description: $0.description, parameters: $0.parameters)
            }
        case .prompt(let prompt):
            type = "prompt"
            segments = prompt.segments.map(SegmentRecord.init)
            options = OptionsRecord(prompt.options)
            responseFormatName = prompt.responseFormat?.name
            responseFormatSchema = prompt.responseFormat?.schema
        case .toolCalls(let calls):
            type = "toolCalls"
            self.calls = calls.map { CallRecord(id: $0.id, toolName: $0.toolName, arguments: $0.arguments.jsonString) }
        case .toolOutput(let output):
            type = "toolOutput"
            toolName = output.toolName
            segments = output.segments.map(SegmentRecord.init)
        case .response(let response):
            type = "response"
            assetIDs = response.assetIDs
            segments = response.segments.map(SegmentRecord.init)
        }
    }

    func entry() throws -> Transcript.Entry {
        let segments = try (self.segments ?? []).map { try $0.segment() }
        switch type {
        case "instructions":
            let definitions = (tools ?? []).map {
                Transcript.ToolDefinition(name: $0.name, description: $0.description, parameters: $0.parameters)
            }
            return .instructions(Transcript.Instructions(id: id, segments: segments, toolDefinitions: definitions))
        case "prompt":
            let format = responseFormatSchema.map {
                Transcript.ResponseFormat(schema: $0, name: responseFormatName ?? "GeneratedContent")
            }
            return .prompt(
                Transcript.Prompt(
                    id: id, segments: segments, options: options?.options ?? GenerationOptions(), responseFormat: format
                ))
        case "toolCalls":
            let calls = try (self.calls ?? []).map {
                Transcript.ToolCall(
                    id: $0.id, toolName: $0.toolName, arguments: try GeneratedContent(json: $0.arguments))
            }
            return .toolCalls(Transcript.ToolCalls(id: id, calls))
        case "toolOutput":
            return .toolOutput(Transcript.ToolOutput(id: id, toolName: toolName ?? "", segments: segments))
        case "response":
            return .response(Transcript.Response(id: id, assetIDs: assetIDs ?? [], segments: segments))
        default:
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "unknown transcript entry type '\(type)' (entry \(id))"))
        }
    }
}
