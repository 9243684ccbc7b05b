import Foundation
import FoundationModels

// What the iOS 27 SDK as shipped (27.0, the 27.1 SDK) adds to the 26 API, member by member, in
// the shapes of Apple's documentation (developer.apple.com/documentation/foundationmodels, as
// published for 27.1) where it differs from the 27 betas: the channel's `Event` is a struct and
// each `Action` an enum-like struct; metadata goes in as `[String: any
// ConvertibleToGeneratedContent]` and is kept as `[String: GeneratedContent]`;
// `updateUsage(input:output:metadata:)`; `LanguageModelError.Refusal(explanation:…)` with its
// explanation; `Transcript.history` as a `Transcript.HistoryView`; dynamic profiles and session
// properties; `ImageReference.resolved(in:)`. Data attachments (27.2 beta) and Private Cloud
// Compute are left out: docs/Porting.md §9 says why.

// MARK: The model seam

struct InventoryEchoModel: LanguageModel {
    typealias Executor = InventoryEchoExecutor
    var capabilities: LanguageModelCapabilities { LanguageModelCapabilities([.guidedGeneration, .toolCalling]) }
    var executorConfiguration: InventoryEchoExecutor.Configuration { .init(prefix: "echo: ") }
}

struct InventoryEchoExecutor: LanguageModelExecutor {
    typealias Model = InventoryEchoModel
    struct Configuration: Hashable, Sendable { var prefix: String }
    let configuration: Configuration

    init(configuration: Configuration) throws { self.configuration = configuration }

    nonisolated(nonsending) func respond(
        to request: LanguageModelExecutorGenerationRequest, model: InventoryEchoModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        let _: UUID = request.id
        let _: Transcript = request.transcript
        let _: [Transcript.ToolDefinition] = request.enabledToolDefinitions
        let _: GenerationSchema? = request.schema
        let _: GenerationOptions = request.generationOptions
        let _: ContextOptions = request.contextOptions
        let _: [String: GeneratedContent] = request.metadata
        let entry = UUID().uuidString
        await channel.send(.response(entryID: entry, action: .updateMetadata(["model": "echo"])))
        await channel.send(
            .response(entryID: entry, action: .appendText(configuration.prefix, segmentID: "s", tokenCount: 2)))
        await channel.send(
            .response(
                entryID: entry,
                action: .updateUsage(
                    input: .init(totalTokenCount: 3, cachedTokenCount: 0),
                    output: .init(totalTokenCount: 2, reasoningTokenCount: 0), metadata: ["requests": 1])))
    }
}

enum SeamInventory {
    static let capabilities: [LanguageModelCapabilities.Capability] = [
        .vision, .guidedGeneration, .toolCalling, .reasoning,
    ]

    static func contains(_ capabilities: LanguageModelCapabilities, _ capability: LanguageModelCapabilities.Capability)
        -> Bool
    { capabilities.contains(capability) }

    static func request() -> LanguageModelExecutorGenerationRequest {
        LanguageModelExecutorGenerationRequest(
            id: UUID(), transcript: Transcript(), enabledTools: [], schema: nil, generationOptions: GenerationOptions(),
            contextOptions: ContextOptions(), metadata: ["source": "inventory"])
    }

    static func contextOptions() -> [ContextOptions] {
        [ContextOptions(), ContextOptions(includeSchemaInPrompt: false, reasoningLevel: .moderate)]
    }
}

// MARK: The channel's events and actions

enum ChannelInventory {
    typealias Channel = LanguageModelExecutorGenerationChannel

    static func events(segment: Transcript.AttachmentSegment) -> [Channel.Event] {
        let input = Channel.Usage.Input(totalTokenCount: 10, cachedTokenCount: 4)
        let output = Channel.Usage.Output(totalTokenCount: 6, reasoningTokenCount: 2)
        let responses: [Channel.Response.Action] = [
            .appendText("Hi", tokenCount: 1), .appendText("!", segmentID: "s", tokenCount: 1),
            .replaceTextSegment("Hello", segmentID: nil, tokenCount: 1), .addAttachmentSegment(segment),
            .removeAttachmentSegment(segment), .updateMetadata(["model": "local"]),
            .updateUsage(input: input, output: output), .updateUsage(input: input, output: output, metadata: ["k": 1]),
        ]
        let reasoning: [Channel.Reasoning.Action] = [
            .appendText("think", tokenCount: 1), .replaceTextSegment("thought", tokenCount: 1),
            .updateSignature(Data([1]), tokenCount: 1), .updateMetadata(["effort": "light"]),
            .updateUsage(input: input, output: output, metadata: [:]),
        ]
        let calls: [Channel.ToolCalls.Action] = [
            .toolCall(id: "c", name: "f", action: .appendArguments("{}", tokenCount: 1)),
            .toolCall(id: "c", name: "f", action: .updateMetadata(["attempt": 1])),
            .removeToolCall(id: "c"), .updateMetadata(["n": 1]), .updateUsage(input: input, output: output),
        ]
        return responses.map { .response(action: $0) } + reasoning.map { .reasoning(entryID: "r", action: $0) }
            + calls.map { .toolCalls(entryID: "t", action: $0) }
    }

    static func usage() -> Channel.Usage {
        var usage = Channel.Usage(
            input: .init(totalTokenCount: 1, cachedTokenCount: 0),
            output: .init(totalTokenCount: 1, reasoningTokenCount: 0),
            metadata: ["k": "v"])
        let _: Channel.Usage.Input = usage.input
        let _: Channel.Usage.Output = usage.output
        usage.metadata["more"] = GeneratedContent("x")
        return usage
    }

    static func fields(_ response: inout Channel.Response) {
        let _: String? = response.entryID
        response.action = .appendText("more", tokenCount: 1)
    }
}

// MARK: Session, usage and errors

enum Session27Inventory {
    static func usageMetadata(_ usage: LanguageModelSession.Usage) -> [String: GeneratedContent] { usage.metadata }

    static func respond(_ session: LanguageModelSession) async throws {
        let metadata: [String: any ConvertibleToGeneratedContent] = ["source": "inventory", "attempt": 1]
        let _: LanguageModelSession.Response<String> = try await session.respond(
            to: "Hi", options: GenerationOptions(), contextOptions: ContextOptions(), metadata: metadata)
        let _: LanguageModelSession.ResponseStream<String> = session.streamResponse(
            to: "Hi", options: GenerationOptions(), contextOptions: ContextOptions(), metadata: metadata)
        let _: SessionPropertyValues = session.properties
    }

    static func refusal() async throws -> LanguageModelError {
        let refusal = LanguageModelError.Refusal(
            explanation: "I cannot help with that.", debugDescription: "refused", metadata: ["policy": "x"])
        let _: LanguageModelSession.Response<String> = try await refusal.explanation
        let _: LanguageModelSession.ResponseStream<String> = refusal.explanationStream
        let _: [String: any Sendable] = refusal.metadata
        return .refusal(refusal)
    }
}

// MARK: Transcript

struct InventoryCitation: Transcript.CustomSegment {
    var id = "cite-1"
    var content: [String] = ["RFC 6455"]
}

enum Transcript27Inventory {
    static func transcript(imageURL: URL) -> Transcript {
        var transcript = Transcript()
        let reasoning = Transcript.Reasoning(
            metadata: ["effort": "light"], segments: [.text(.init(content: "Think"))], signature: Data([1, 2]))
        let image = Transcript.AttachmentSegment(
            content: .image(Transcript.ImageAttachment(imageURL: imageURL)), label: "screenshot")
        let prompt = Transcript.Prompt(
            id: "p1", metadata: ["source": "inventory"], segments: [.attachment(image), .custom(InventoryCitation())],
            options: GenerationOptions(), responseFormat: nil, contextOptions: ContextOptions())
        let call = Transcript.ToolCall(
            id: "c1", metadata: ["attempt": 1], toolName: "getWeather", arguments: GeneratedContent("Paris"))
        let response = Transcript.Response(metadata: ["model": "local"], segments: [.text(.init(content: "Sunny"))])
        transcript.append(contentsOf: [
            .prompt(prompt), .reasoning(reasoning), .toolCalls(Transcript.ToolCalls([call])), .response(response),
        ])
        transcript[3] = .response(response)  // MutableCollection
        let _: Data? = reasoning.signature
        let _: [String: GeneratedContent] = prompt.metadata
        let _: [String: GeneratedContent] = call.metadata
        let _: [String: GeneratedContent] = response.metadata
        let _: [String: GeneratedContent] = reasoning.metadata
        return transcript
    }

    static func history(_ transcript: inout Transcript) -> Transcript.HistoryView {
        var history: Transcript.HistoryView = transcript.history
        history.append(.prompt(Transcript.Prompt(segments: [])))
        history.append(contentsOf: [Transcript.Entry]())
        let _: ArraySlice<Transcript.Entry> = history[0..<history.count]
        let empty: Transcript.HistoryView = []
        transcript.history = history
        return empty
    }

    static func samplingKind(_ mode: GenerationOptions.SamplingMode) -> String {
        switch mode.kind {
        case .greedy: "greedy"
        case .randomTopK(let k, let seed): "top \(k) \(String(describing: seed))"
        case .randomProbabilityThreshold(let threshold, let seed): "p \(threshold) \(String(describing: seed))"
        }
    }

    static func toolCallingKind(_ mode: GenerationOptions.ToolCallingMode) -> GenerationOptions.ToolCallingMode.Kind {
        mode.kind
    }

    static func deprecatedSampling() -> GenerationOptions {
        var options = GenerationOptions(sampling: .greedy, temperature: 0.2)
        options.sampling = .random(top: 5)
        return options
    }
}

// MARK: Attachments and image references

enum Attachment27Inventory {
    static func attachments(url: URL, data: Data, image: CGImage) -> [Attachment<ImageAttachmentContent>] {
        [
            Attachment(imageURL: url).label("first"), Attachment(imageURL: url, orientation: .right),
            Attachment(image), Attachment(image, orientation: .up).label("second"), Attachment(imageData: data),
        ]
    }

    static func prompts(imageData: Data) -> [Prompt] {
        [
            Prompt(Attachment(imageData: imageData).label("receipt")),
            Prompt(InventoryCitation()),
            Prompt {
                "What does it say?"
                Attachment(imageData: imageData)
            },
        ]
    }

    static func reference(in transcript: Transcript) -> CGImage? {
        let reference = ImageReference(attachmentLabel: "screenshot")
        let _: String = reference.attachmentLabel
        let _: GenerationSchema = ImageReference.generationSchema
        let attachment: Transcript.ImageAttachment? = reference.resolved(in: transcript)
        let _: URL? = attachment?.url
        let _: CGImagePropertyOrientation? = attachment?.orientation
        return attachment?.cgImage
    }

    static func partialReference(_ content: GeneratedContent) throws -> String? {
        try ImageReference.PartiallyGenerated(content).attachmentLabel
    }
}

// MARK: Dynamic profiles, dynamic instructions and session properties

extension SessionPropertyValues {
    @SessionPropertyEntry var inventoryAccount: String = "anonymous"
}

struct InventoryInstructions: DynamicInstructions {
    var detailed: Bool
    var topics: [String]

    var body: some DynamicInstructions {
        Instructions("You are a travel agent.")
        InventoryWeatherTool()
        if detailed {
            Instructions("Explain each step.")
        } else {
            "Be brief."
        }
        ForEach(topics) { topic in Instructions("Cover \(topic).") }
    }
}

struct InventoryProfile: LanguageModelSession.DynamicProfile {
    var quizzing: Bool
    @SessionProperty(\.history) var history
    @SessionProperty(\.inventoryAccount) var account

    var body: some DynamicProfile {
        if quizzing {
            Profile { Instructions("Ask one question at a time.") }
                .temperature(0.2)
                .samplingMode(.greedy)
                .maximumResponseTokens(80)
                .reasoningLevel(.light)
                .toolCallingMode(.disallowed)
                .transcriptErrorHandlingPolicy(.preserveTranscript)
                .model(InventoryEchoModel())
        } else {
            Profile { InventoryInstructions(detailed: true, topics: ["trains"]) }
                .historyTransform { Array($0.suffix(20)) }
                .modifier(InventoryTerse())
                .onActivate {}
                .onDeactivate {}
                .onPrompt {}
                .onPrompt { (_: Transcript.Prompt) in }
                .onResponse {}
                .onResponse { (_: Transcript.Response) in }
                .onReasoning {}
                .onToolCall {}
                .onToolCall { (_: Transcript.ToolCall) in }
                .onToolOutput {}
                .onToolOutput { (_: Transcript.ToolCall, _: Transcript.ToolOutput) in }
        }
    }
}

struct InventoryTerse: LanguageModelSession.DynamicProfileModifier {
    func body(content: Content) -> some DynamicProfile {
        content.temperature(0).maximumResponseTokens(60)
    }
}

enum Profile27Inventory {
    static func sessions() -> [LanguageModelSession] {
        [
            LanguageModelSession(profile: InventoryProfile(quizzing: false)),
            LanguageModelSession(profile: InventoryProfile(quizzing: true), history: [Transcript.Entry]()),
            LanguageModelSession(dynamicInstructions: InventoryInstructions(detailed: false, topics: [])),
            LanguageModelSession(
                model: InventoryEchoModel(), dynamicInstructions: InventoryInstructions(detailed: true, topics: []),
                history: Transcript()),
            LanguageModelSession(profile: LanguageModelSession.AnyDynamicProfile(InventoryProfile(quizzing: true))),
        ]
    }

    static func properties(_ values: SessionPropertyValues) {
        let _: Transcript.HistoryView = values.history
        values.inventoryAccount = "ada"
        let _: String = values.inventoryAccount
    }

    struct ReviewCountKey: SessionPropertyKey {
        static var defaultValue: Int { 0 }
    }

    static func customKey(_ values: SessionPropertyValues) -> Int {
        values[ReviewCountKey.self] += 1
        return values[ReviewCountKey.self]
    }
}
