import Foundation
import FoundationModels

// Every member of the API inventory of Apple's framework, written as code that uses it with the
// types the SDK gives: this file the 26.4/26.5 SDK interface (SystemLanguageModel,
// LanguageModelSession, Response and ResponseStream, Usage, the errors, GenerationOptions, the
// Generable protocols and macros, guides, schemas, GeneratedContent, Tool, the builders,
// Transcript), APIInventory27.swift what the iOS 27 SDK as shipped adds. These files compile only
// while each member exists with that shape; the functions that need a model are never called,
// the values built here are checked by APIInventoryTests. What Sotto leaves out is in
// docs/Porting.md §9.

// MARK: §3 SystemLanguageModel

enum SystemModelInventory {
    static func uses(_ model: SystemLanguageModel) async throws {
        let shared: SystemLanguageModel = .default
        let availability: SystemLanguageModel.Availability = shared.availability
        switch availability {
        case .available: break
        case .unavailable(let reason):
            let known: [SystemLanguageModel.Availability.UnavailableReason] = [
                .deviceNotEligible, .appleIntelligenceNotEnabled, .modelNotReady,
            ]
            _ = known.contains(reason)
        }
        let _: Bool = model.isAvailable
        let _: Set<Locale.Language> = model.supportedLanguages
        let _: Bool = model.supportsLocale()
        let _: Bool = model.supportsLocale(Locale(identifier: "en_US"))
        let _: Int = model.contextSize
        let _: Int = try await model.tokenCount(for: "A prompt")
        let _: Int = try await model.tokenCount(for: Prompt("A prompt"))
        let _: Int = try await model.tokenCount(for: Instructions("Be brief."))
        let _: Int = try await model.tokenCount(for: [any Tool]())
        let _: Int = try await model.tokenCount(for: String.generationSchema)
        let _: Int = try await model.tokenCount(for: Transcript().map { $0 })
        let _: any Observable = model
        let _: any LanguageModel = model
    }

    static func initializers() -> [SystemLanguageModel] {
        [
            SystemLanguageModel(),
            SystemLanguageModel(useCase: .general),
            SystemLanguageModel(useCase: .contentTagging, guardrails: .default),
            SystemLanguageModel(guardrails: .permissiveContentTransformations),
        ]
    }

    static func isAssetsUnavailable(_ error: any Error) -> Bool {
        if case SystemLanguageModel.Error.assetsUnavailable = error { return true }
        return false
    }
}

// MARK: §4 LanguageModelSession

enum SessionInventory {
    static func initializers(model: SystemLanguageModel, tools: [any Tool]) -> [LanguageModelSession] {
        [
            LanguageModelSession(),
            LanguageModelSession(model: model, tools: tools, instructions: "Be brief." as String?),
            LanguageModelSession(model: model, tools: tools) { "Be brief." },
            LanguageModelSession(model: model, tools: tools, instructions: Instructions("Be brief.")),
            LanguageModelSession(model: model, tools: tools, transcript: Transcript()),
        ]
    }

    // The 27 initializers, over any `LanguageModel`.
    static func initializers<Model: LanguageModel>(model: Model) -> [LanguageModelSession] {
        [
            LanguageModelSession(model: model),
            LanguageModelSession(model: model, tools: [], instructions: "Be brief." as String?),
            LanguageModelSession(model: model, tools: []) { "Be brief." },
            LanguageModelSession(model: model, instructions: Instructions("Be brief.")),
            LanguageModelSession(model: model, transcript: Transcript()),
        ]
    }

    static func state(_ session: LanguageModelSession) {
        let transcript: Transcript = session.transcript
        session.transcript = transcript  // settable while idle (27)
        let _: Bool = session.isResponding
        session.prewarm()
        session.prewarm(promptPrefix: Prompt("Summarize"))
        let _: LanguageModelSession.Usage = session.usage
        session.transcriptErrorHandlingPolicy = .preserveTranscript
        let _: any Observable = session
    }

    static func respond(_ session: LanguageModelSession) async throws {
        let options = GenerationOptions()
        let schema = Int.generationSchema
        // The nine 26 overloads.
        let r1: LanguageModelSession.Response<String> = try await session.respond(to: Prompt("Hi"), options: options)
        let _: LanguageModelSession.Response<String> = try await session.respond(to: "Hi", options: options)
        let _: LanguageModelSession.Response<String> = try await session.respond(options: options) { "Hi" }
        let r3: LanguageModelSession.Response<GeneratedContent> = try await session.respond(
            to: Prompt("Hi"), schema: schema, includeSchemaInPrompt: false, options: options)
        let _: LanguageModelSession.Response<GeneratedContent> = try await session.respond(to: "Hi", schema: schema)
        let _: LanguageModelSession.Response<GeneratedContent> = try await session.respond(
            schema: schema, includeSchemaInPrompt: true, options: options
        ) { "Hi" }
        let r5: LanguageModelSession.Response<Int> = try await session.respond(
            to: Prompt("Hi"), generating: Int.self, includeSchemaInPrompt: true, options: options)
        let _: LanguageModelSession.Response<Int> = try await session.respond(to: "Hi", generating: Int.self)
        let _: LanguageModelSession.Response<Int> = try await session.respond(generating: Int.self) { "Hi" }
        // The nine 27 overloads: contextOptions and metadata.
        let context = ContextOptions(includeSchemaInPrompt: true)
        let _ = try await session.respond(to: Prompt("Hi"), options: options, contextOptions: context, metadata: [:])
        let _ = try await session.respond(to: "Hi", contextOptions: context)
        let _ = try await session.respond(contextOptions: context, metadata: ["k": "v"]) { "Hi" }
        let _ = try await session.respond(to: Prompt("Hi"), schema: schema, contextOptions: context)
        let _ = try await session.respond(to: "Hi", schema: schema, contextOptions: context)
        let _ = try await session.respond(schema: schema, contextOptions: context) { "Hi" }
        let _ = try await session.respond(to: Prompt("Hi"), generating: Int.self, contextOptions: context)
        let _ = try await session.respond(to: "Hi", generating: Int.self, contextOptions: context)
        let _ = try await session.respond(generating: Int.self, contextOptions: context) { "Hi" }
        // §5 Response.
        let _: String = r1.content
        let _: GeneratedContent = r1.rawContent
        let _: ArraySlice<Transcript.Entry> = r1.transcriptEntries
        let _: LanguageModelSession.Usage = r1.usage
        let _: GeneratedContent = r3.content
        let _: Int = r5.content
    }

    static func stream(_ session: LanguageModelSession) async throws {
        let schema = Int.generationSchema
        let context = ContextOptions()
        let s1: LanguageModelSession.ResponseStream<String> = session.streamResponse(to: Prompt("Hi"))
        let _: LanguageModelSession.ResponseStream<String> = session.streamResponse(to: "Hi", options: .init())
        let _: LanguageModelSession.ResponseStream<String> = session.streamResponse { "Hi" }
        let _: LanguageModelSession.ResponseStream<GeneratedContent> = session.streamResponse(
            to: Prompt("Hi"), schema: schema, includeSchemaInPrompt: false)
        let _: LanguageModelSession.ResponseStream<GeneratedContent> = session.streamResponse(to: "Hi", schema: schema)
        let _: LanguageModelSession.ResponseStream<GeneratedContent> = session.streamResponse(schema: schema) { "Hi" }
        let s5: LanguageModelSession.ResponseStream<Int> = session.streamResponse(
            to: Prompt("Hi"), generating: Int.self)
        let _: LanguageModelSession.ResponseStream<Int> = session.streamResponse(to: "Hi", generating: Int.self)
        let _: LanguageModelSession.ResponseStream<Int> = session.streamResponse(generating: Int.self) { "Hi" }
        let _ = session.streamResponse(to: Prompt("Hi"), options: .init(), contextOptions: context, metadata: [:])
        let _ = session.streamResponse(to: "Hi", schema: schema, contextOptions: context)
        let _ = session.streamResponse(generating: Int.self, contextOptions: context) { "Hi" }
        // §5 ResponseStream and Snapshot.
        for try await snapshot in s1 {
            let _: String.PartiallyGenerated = snapshot.content
            let _: GeneratedContent = snapshot.rawContent
            let _: ArraySlice<Transcript.Entry> = snapshot.transcriptEntries
            let _: LanguageModelSession.Usage = snapshot.usage
        }
        var iterator: LanguageModelSession.ResponseStream<Int>.AsyncIterator = s5.makeAsyncIterator()
        let _: LanguageModelSession.ResponseStream<Int>.Snapshot? = try await iterator.next()
        let _: LanguageModelSession.Response<Int> = try await s5.collect()
    }
}

// MARK: §6 Usage

enum UsageInventory {
    static func usage() -> LanguageModelSession.Usage {
        LanguageModelSession.Usage(
            input: .init(totalTokenCount: 120, cachedTokenCount: 100),
            output: .init(totalTokenCount: 30, reasoningTokenCount: 0), metadata: ["model": "local"])
    }
}

// MARK: §7 Errors

enum ErrorInventory {
    static func generationErrors() -> [LanguageModelSession.GenerationError] {
        let context = LanguageModelSession.GenerationError.Context(debugDescription: "why")
        return [
            .exceededContextWindowSize(context), .assetsUnavailable(context), .guardrailViolation(context),
            .unsupportedGuide(context), .unsupportedLanguageOrLocale(context), .decodingFailure(context),
            .rateLimited(context), .concurrentRequests(context),
            .refusal(LanguageModelSession.GenerationError.Refusal(transcriptEntries: []), context),
        ]
    }

    static func descriptions(_ error: LanguageModelSession.GenerationError) -> [String?] {
        [error.errorDescription, error.recoverySuggestion, error.failureReason]
    }

    static func refusal(_ refusal: LanguageModelSession.GenerationError.Refusal) async throws {
        let _: LanguageModelSession.Response<String> = try await refusal.explanation
        let _: LanguageModelSession.ResponseStream<String> = refusal.explanationStream
    }

    static func toolCallError(tool: any Tool) -> LanguageModelSession.ToolCallError {
        let error = LanguageModelSession.ToolCallError(tool: tool, underlyingError: CocoaError(.fileNoSuchFile))
        let _: any Tool = error.tool
        let _: any Error = error.underlyingError
        let _: String? = error.errorDescription
        return error
    }

    static func languageModelErrors() -> [LanguageModelError] {
        [
            .contextSizeExceeded(.init(contextSize: 4096, tokenCount: 5000, debugDescription: "too long")),
            .rateLimited(.init(resetDate: nil, debugDescription: "later")),
            .guardrailViolation(.init(debugDescription: "unsafe")),
            .unsupportedCapability(.init(capability: .vision, debugDescription: "no vision")),
            .unsupportedTranscriptContent(.init(unsupportedContent: [], debugDescription: "cannot take it")),
            .unsupportedGenerationGuide(.init(schemaName: nil, debugDescription: "guide")),
            .unsupportedLanguageOrLocale(.init(languageCode: Locale.LanguageCode("xx"), debugDescription: "language")),
            .timeout(.init(debugDescription: "slow", metadata: [:])),
        ]
    }

    static func payloads(_ error: LanguageModelError) {
        switch error {
        case .contextSizeExceeded(let payload):
            let _: Int = payload.contextSize
            let _: Int = payload.tokenCount
            let _: [String: any Sendable] = payload.metadata
        case .rateLimited(let payload): let _: Date? = payload.resetDate
        case .refusal(let payload): let _: String = payload.debugDescription
        case .unsupportedCapability(let payload): let _: LanguageModelCapabilities.Capability = payload.capability
        case .unsupportedTranscriptContent(let payload): let _: [Transcript.Entry] = payload.unsupportedContent
        case .unsupportedGenerationGuide(let payload): let _: String? = payload.schemaName
        case .unsupportedLanguageOrLocale(let payload): let _: Locale.LanguageCode = payload.languageCode
        case .guardrailViolation, .timeout: break
        }
        let _: String = error.debugDescription
    }

    static let sessionErrors: [LanguageModelSession.Error] = [.concurrentRequests, .transcriptMutationWhileResponding]

    static func parsingError() -> GeneratedContent.ParsingError {
        let error = GeneratedContent.ParsingError(rawContent: "{", debugDescription: "cut off")
        let _: String = error.rawContent
        let _: (any Error)? = error.underlyingError
        return error
    }

    static let policies: [TranscriptErrorHandlingPolicy] = [
        .revertTranscript, .preserveTranscript,
    ]
}

// MARK: §8 GenerationOptions

enum OptionsInventory {
    static func options() -> [GenerationOptions] {
        [
            GenerationOptions(),
            GenerationOptions(samplingMode: .greedy, temperature: 0.5, maximumResponseTokens: 64),
            GenerationOptions(samplingMode: .random(top: 40, seed: 7)),
            GenerationOptions(samplingMode: .random(probabilityThreshold: 0.9, seed: nil)),
            GenerationOptions(
                samplingMode: .greedy, temperature: nil, maximumResponseTokens: nil, toolCallingMode: .required),
        ]
    }

    static func fields(_ options: inout GenerationOptions) {
        let _: GenerationOptions.SamplingMode? = options.samplingMode
        let _: Double? = options.temperature
        let _: Int? = options.maximumResponseTokens
        let _: GenerationOptions.ToolCallingMode? = options.toolCallingMode
        options.temperature = 1
    }

    static let toolCallingModes: [GenerationOptions.ToolCallingMode] = [.allowed, .required, .disallowed]
}

// MARK: §9 Generable protocols and built-in conformances

enum ConformanceInventory {
    static func generable<T: Generable>(_ type: T.Type) -> GenerationSchema { T.generationSchema }

    static let schemas: [GenerationSchema] = [
        generable(Bool.self), generable(String.self), generable(Int.self), generable(Float.self),
        generable(Double.self), generable(Decimal.self), generable(GeneratedContent.self), generable([Int].self),
    ]

    static func representable(_ value: some PromptRepresentable & InstructionsRepresentable) -> Prompt {
        Prompt(value)
    }

    static func convertible(_ value: some ConvertibleToGeneratedContent) -> GeneratedContent {
        value.generatedContent
    }

    static func partial<T: Generable>(_ value: T) -> T.PartiallyGenerated { value.asPartiallyGenerated() }
}

// MARK: §10 Macros and §11 guides

@Generable(description: "A trip plan")
struct InventoryTrip {
    @Guide(description: "Where to", .anyOf(["Paris", "Rome"]))
    var city: String
    @Guide(description: "A code", .constant("TRIP"))
    var code: String
    @Guide(description: "Pattern", /[A-Z]{3}/)
    var airport: String
    @Guide(description: "Nights", .minimum(1), .maximum(14))
    var nights: Int
    @Guide(description: "Budget", .range(100.0...5000.0))
    var budget: Double
    @Guide(description: "Stars", .range(Float(1)...Float(5)))
    var stars: Float
    @Guide(description: "Tip", .minimum(Decimal(0)))
    var tip: Decimal
    @Guide(description: "Tags", .count(3))
    var tags: [String]
    @Guide(description: "Stops", .minimumCount(1), .maximumCount(4))
    var stops: [String]
    @Guide(description: "Ratings", .count(1...3), .element(.range(1...5)))
    var ratings: [Int]
    @Guide(description: "A note")
    var note: String?
    var id: GenerationID
    let kind = "trip"
}

@Generable(description: "Explicit nils", representNilExplicitlyInGeneratedContent: true)
struct InventoryExplicitNil {
    var value: Int?
}

@Generable
enum InventoryMood {
    case calm, busy
}

// MARK: §12 GenerationSchema, §13 DynamicGenerationSchema, §14 GeneratedContent

enum SchemaInventory {
    static func schemas() throws -> [GenerationSchema] {
        let property = GenerationSchema.Property(
            name: "count", description: "How many", type: Int.self, guides: [.minimum(0)])
        let optional = GenerationSchema.Property(name: "note", type: String?.self)
        let pattern = GenerationSchema.Property(name: "code", type: String.self, guides: [/[a-z]+/])
        let root = DynamicGenerationSchema(
            name: "Order", description: "An order",
            properties: [
                .init(name: "item", schema: DynamicGenerationSchema(type: String.self)),
                .init(name: "size", schema: DynamicGenerationSchema(referenceTo: "Size"), isOptional: true),
                .init(
                    name: "extras",
                    schema: DynamicGenerationSchema(
                        arrayOf: DynamicGenerationSchema(type: String.self), minimumElements: 0, maximumElements: 3)),
                .init(name: "nothing", schema: .null),
            ])
        let size = DynamicGenerationSchema(name: "Size", description: nil, anyOf: ["small", "large"])
        let union = DynamicGenerationSchema(
            name: "Either", description: nil, anyOf: [DynamicGenerationSchema(type: Int.self), size])
        let explicitNil = DynamicGenerationSchema(
            name: "Explicit", description: nil, representNilExplicitlyInGeneratedContent: true, properties: [])
        return [
            GenerationSchema(type: InventoryTrip.self, description: "Trip", properties: [property, optional, pattern]),
            GenerationSchema(
                type: InventoryTrip.self, description: nil, representNilExplicitlyInGeneratedContent: true,
                properties: [optional]),
            GenerationSchema(type: InventoryMood.self, description: "Mood", anyOf: ["calm", "busy"]),
            GenerationSchema(type: GeneratedContent.self, description: nil, anyOf: [Int.self, String.self]),
            try GenerationSchema(root: root, dependencies: [size]),
            try GenerationSchema(root: union, dependencies: []),
            try GenerationSchema(root: explicitNil, dependencies: []),
        ]
    }

    static func schemaMembers(_ schema: GenerationSchema) throws -> String {
        let data = try JSONEncoder().encode(schema)
        _ = try JSONDecoder().decode(GenerationSchema.self, from: data)
        return schema.name + schema.debugDescription
    }

    static func isSchemaError(_ error: any Error) -> Bool {
        guard let error = error as? GenerationSchema.SchemaError else { return false }
        switch error {
        case .duplicateType(let schema, let type, let context): _ = (schema, type, context.debugDescription)
        case .duplicateProperty(let schema, let property, let context): _ = (schema, property, context)
        case .emptyTypeChoices(let schema, let context): _ = (schema, context)
        case .undefinedReferences(let schema, let references, let context): _ = (schema, references, context)
        }
        return error.errorDescription != nil || error.recoverySuggestion != nil
    }

    static func content() throws -> [GeneratedContent] {
        let id = GenerationID()
        let object = GeneratedContent(properties: ["name": "Ada", "age": 36], id: id)
        let merged = GeneratedContent(
            properties: [("a", 1 as any ConvertibleToGeneratedContent), ("a", 2)], id: nil,
            uniquingKeysWith: { _, second in second })
        let array = GeneratedContent(elements: [1, 2, 3] as [any ConvertibleToGeneratedContent], id: nil)
        let partial = try GeneratedContent(json: #"{"name": "Ad"#)
        let _: GenerationID? = object.id
        let _: String = object.jsonString
        let _: Bool = partial.isComplete
        let _: String = try object.value(String.self, forProperty: "name")
        let _: Int? = try object.value(Int?.self, forProperty: "missing")
        let _: [Int] = try array.value([Int].self)
        let _: GeneratedContent.Kind = object.kind
        let _: String = object.debugDescription
        return [
            object, merged, array, partial, GeneratedContent("text"), GeneratedContent(7, id: id),
            GeneratedContent(kind: .structure(properties: ["k": GeneratedContent(kind: .null)], orderedKeys: ["k"])),
            GeneratedContent(kind: .array([GeneratedContent(kind: .bool(true)), GeneratedContent(kind: .number(1))])),
            GeneratedContent(kind: .string("s")),
        ]
    }
}

// MARK: §16 Tool

struct InventoryWeatherTool: Tool {
    let name = "getWeather"
    let description = "The weather in a city"

    @Generable
    struct Arguments {
        @Guide(description: "The city")
        var city: String
    }

    func call(arguments: Arguments) async throws -> String { "Sunny in \(arguments.city)" }
}

struct InventoryRawTool: Tool {
    let description = "Echoes its arguments"
    var parameters: GenerationSchema { String.generationSchema }
    var includesSchemaInInstructions: Bool { false }
    func call(arguments: GeneratedContent) async throws -> GeneratedContent { arguments }
}

// MARK: §17 Instructions, Prompt and builders

enum BuilderInventory {
    static func instructions(verbose: Bool, items: [String]) -> Instructions {
        Instructions {
            "You are a travel agent."
            if verbose { "Explain each step." } else { "Be brief." }
            for item in items { item }
            Instructions("Never book without asking.")
        }
    }

    static func prompt(city: String?, trip: InventoryTrip?) -> Prompt {
        Prompt {
            "Plan a trip"
            if let city { city }
            ["one", "two"]
            if #available(macOS 26.0, *) { "available" }
        }
    }

    static func representations(_ value: some InstructionsRepresentable & PromptRepresentable) -> (Instructions, Prompt)
    {
        (value.instructionsRepresentation, value.promptRepresentation)
    }
}

// MARK: §18 Transcript

enum TranscriptInventory {
    static func transcript(tool: some Tool) -> Transcript {
        let text = Transcript.TextSegment(content: "Hello")
        let structure = Transcript.StructuredSegment(source: "Trip", content: GeneratedContent("x"))
        let named = Transcript.StructuredSegment(id: "s2", schemaName: "Trip", content: GeneratedContent("y"))
        let definition = Transcript.ToolDefinition(tool: tool)
        let manual = Transcript.ToolDefinition(name: "echo", description: "Echoes", parameters: String.generationSchema)
        let instructions = Transcript.Instructions(
            segments: [.text(text)], toolDefinitions: [definition, manual])
        let prompt = Transcript.Prompt(
            segments: [.text(text), .structure(structure)], options: GenerationOptions(),
            responseFormat: Transcript.ResponseFormat(type: InventoryTrip.self))
        let schemaFormat = Transcript.ResponseFormat(schema: Int.generationSchema)
        let call = Transcript.ToolCall(id: "c1", toolName: "getWeather", arguments: GeneratedContent("Paris"))
        let calls = Transcript.ToolCalls([call])
        let output = Transcript.ToolOutput(id: "c1", toolName: "getWeather", segments: [.text(text)])
        let response = Transcript.Response(assetIDs: [], segments: [.structure(named)])
        var transcript = Transcript(entries: [
            .instructions(instructions), .prompt(prompt), .toolCalls(calls), .toolOutput(output), .response(response),
        ])
        let _: Transcript.Entry = transcript[0]
        let _: Int = transcript.startIndex + transcript.endIndex
        let _: String = transcript.description
        let _: Transcript.HistoryView = transcript.history
        let _: String = schemaFormat.name
        let _: String = transcript[0].id
        transcript.replaceSubrange(4..<5, with: [Transcript.Entry.response(response)])
        transcript.append(.prompt(Transcript.Prompt(segments: [.text(text)])))
        let _: String = prompt.segments.description + instructions.toolDefinitions.description
        let _: GenerationSchema = definition.parameters
        let _: Int = calls.count
        return transcript
    }
}
