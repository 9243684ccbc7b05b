import Foundation
import FoundationModels
import Testing

/// What the values of the API inventory (APIInventory.swift) do: the file compiling shows each
/// member exists; these show the ones that compute something behave as Apple documents.
@Suite struct APIInventoryTests {
    @Test func usageTotalsInputAndOutput() {
        let usage = UsageInventory.usage()
        #expect(usage.totalTokenCount == 150)
        #expect(usage.input.cachedTokenCount == 100)
        #expect(usage.metadata["model"] as? String == "local")
    }

    @Test func optionsKeepWhatTheyAreGiven() {
        let options = OptionsInventory.options()
        #expect(options[0] == GenerationOptions(samplingMode: nil, temperature: nil, maximumResponseTokens: nil))
        #expect(options[1].maximumResponseTokens == 64)
        #expect(Members27Inventory.samplingKind(options[2].samplingMode!) == "top 40 Optional(7)")
        #expect(Members27Inventory.samplingKind(options[3].samplingMode!) == "p 0.9 nil")
        #expect(options[4].toolCallingMode.map(Members27Inventory.toolCallingKind) == .required)
        // The 26 name and the 27 name are one property.
        let deprecated = Members27Inventory.deprecatedSampling()
        #expect(deprecated.samplingMode == .random(top: 5))
        #expect(deprecated.temperature == 0.2)
    }

    @Test func everyErrorCaseDescribesItself() {
        for error in ErrorInventory.generationErrors() {
            #expect(ErrorInventory.descriptions(error).compactMap { $0 }.allSatisfy { !$0.isEmpty })
        }
        let context = LanguageModelError.contextSizeExceeded(
            .init(contextSize: 4096, tokenCount: 5000, debugDescription: "5000 tokens"))
        #expect(context.debugDescription.contains("5000 tokens"))
        #expect(ErrorInventory.languageModelErrors().map(\.debugDescription).allSatisfy { !$0.isEmpty })
        #expect(Set(ErrorInventory.sessionErrors).count == 2)
        #expect(ErrorInventory.parsingError().rawContent == "{")
        #expect(ErrorInventory.policies[0] != ErrorInventory.policies[1])
    }

    @Test func builtInTypesAreGenerable() throws {
        let schemas = ConformanceInventory.schemas
        #expect(schemas.count == 8)
        #expect(ConformanceInventory.convertible([1, 2]).jsonString == "[1,2]")
        #expect(ConformanceInventory.partial(7) == 7)
    }

    @Test func macroLeavesInitializedLetsOutOfTheSchema() throws {
        let json = try #require(String(data: JSONEncoder().encode(InventoryTrip.generationSchema), encoding: .utf8))
        #expect(json.contains("\"city\""))
        #expect(json.contains("\"ratings\""))
        #expect(!json.contains("\"kind\""))
        // Declaration order is kept (in `x-order`: the encoder may write the object's keys, and
        // so the places where the names appear, in any order).
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let order = try #require(object["x-order"] as? [String], "\(json)")
        let city = try #require(order.firstIndex(of: "city")), ratings = try #require(order.firstIndex(of: "ratings"))
        #expect(city < ratings)
    }

    @Test func schemasResolveTheirReferencesOrSayWhich() throws {
        let schemas = try SchemaInventory.schemas()
        #expect(schemas.count == 7)
        #expect(try SchemaInventory.schemaMembers(schemas[4]).hasPrefix("Order"))
        let dangling = DynamicGenerationSchema(
            name: "Order", description: nil,
            properties: [.init(name: "size", schema: DynamicGenerationSchema(referenceTo: "Missing"))])
        do {
            _ = try GenerationSchema(root: dangling, dependencies: [])
            Issue.record("an undefined reference was accepted")
        } catch {
            #expect(SchemaInventory.isSchemaError(error))
            guard case GenerationSchema.SchemaError.undefinedReferences(_, let references, _) = error else {
                Issue.record("expected undefinedReferences, got \(error)")
                return
            }
            #expect(references == ["Missing"])
        }
    }

    @Test func generatedContentKeepsOrderMergesAndParsesPartialJSON() throws {
        let contents = try SchemaInventory.content()
        #expect(contents[0].jsonString == #"{"name":"Ada","age":36}"#)
        #expect(try contents[1].value(Int.self, forProperty: "a") == 2)
        #expect(try contents[2].value([Int].self) == [1, 2, 3])
        #expect(!contents[3].isComplete)
        #expect(try contents[3].value(String.self, forProperty: "name") == "Ad")
    }

    @Test func buildersJoinTheirParts() {
        let instructions = BuilderInventory.instructions(verbose: false, items: ["a", "b"])
        let text = Transcript.Instructions(segments: instructions.segments, toolDefinitions: []).description
        #expect(text.contains("Be brief."))
        #expect(!text.contains("Explain each step."))
        #expect(text.contains("Never book without asking."))
        let prompt = BuilderInventory.prompt(city: nil, trip: nil)
        #expect(!Transcript.Prompt(segments: prompt.segments).description.contains("Paris"))
    }

    @Test func transcriptIsACollectionWithHistory() {
        let transcript = TranscriptInventory.transcript(tool: InventoryWeatherTool())
        #expect(transcript.count == 6)
        #expect(transcript.history.count == 5)  // the instructions are not history
        guard case .instructions(let instructions) = transcript.first else {
            Issue.record("the first entry is not the instructions")
            return
        }
        #expect(instructions.toolDefinitions.map(\.name) == ["getWeather", "echo"])
        let other = Members27Inventory.transcript(imageURL: URL(fileURLWithPath: "/tmp/none.png"))
        #expect(other.count == 4)
        guard case .reasoning(let reasoning) = other[1] else {
            Issue.record("the second entry is not the reasoning")
            return
        }
        #expect(reasoning.signature == Data([1, 2]))
    }

    @Test func aModelOfYourOwnAnswersThroughTheSeam() async throws {
        let session = LanguageModelSession(model: InventoryEchoModel())
        let response = try await session.respond(to: "Hi")
        #expect(response.content == "echo: ")
        #expect(response.usage.input.totalTokenCount == 3)
        #expect(response.usage.output.totalTokenCount == 2)
        #expect(SeamInventory.contains(InventoryEchoModel().capabilities, .toolCalling))
        #expect(!SeamInventory.contains(InventoryEchoModel().capabilities, .vision))
        // A capability the model lacks is refused before the executor runs.
        let data = Data([0x89, 0x50, 0x4E, 0x47])
        await #expect(throws: LanguageModelError.self) {
            try await session.respond(to: Prompt(Attachment(imageData: data)))
        }
    }

    @Test func transcriptIsSettableWhileIdle() async throws {
        let session = LanguageModelSession(model: InventoryEchoModel(), instructions: "Be brief.")
        _ = try await session.respond(to: "Hi")
        #expect(session.transcript.count == 3)
        session.transcript = Transcript(entries: session.transcript.prefix(1))
        #expect(session.transcript.count == 1)
        _ = try await session.respond(to: "Again")
        #expect(session.transcript.count == 3)
    }

    @Test func aTranscriptWriteWhileRespondingIsRefusedAndReported() async throws {
        let gate = Gate()
        let model = ScriptedModel(turns: [.text("Hello there"), .text("Next")], gate: gate)
        let session = LanguageModelSession(model: model)
        let answer = Task { try await session.respond(to: "Hi") }
        await gate.waitForArrival()
        #expect(session.isResponding)
        session.transcript = Transcript()
        gate.open()
        await #expect(throws: LanguageModelSession.Error.transcriptMutationWhileResponding) {
            try await answer.value
        }
        // The write was not applied: the prompt and the response are there, and the session is free.
        #expect(session.transcript.count == 2)
        #expect(!session.isResponding)
        let next = try await session.respond(to: "And?")
        #expect(next.content == "Next")
    }
}
