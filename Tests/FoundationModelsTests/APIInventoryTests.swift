import Foundation
import FoundationModels
import TestSupport
import Testing

/// What the values of the API inventory (APIInventory.swift, APIInventory27.swift) do: the files
/// compiling shows each member exists; these show the ones that compute something behave as
/// Apple documents.
@Suite struct APIInventoryTests {
    @Test(.onTestThreads) func usageTotalsInputAndOutput() {
        let usage = UsageInventory.usage()
        #expect(usage.totalTokenCount == 150)
        #expect(usage.input.cachedTokenCount == 100)
        #expect(usage.metadata["model"] == GeneratedContent("local"))
    }

    @Test(.onTestThreads) func optionsKeepWhatTheyAreGiven() {
        let options = OptionsInventory.options()
        #expect(options[0] == GenerationOptions(samplingMode: nil, temperature: nil, maximumResponseTokens: nil))
        #expect(options[1].maximumResponseTokens == 64)
        #expect(Transcript27Inventory.samplingKind(options[2].samplingMode!) == "top 40 Optional(7)")
        #expect(Transcript27Inventory.samplingKind(options[3].samplingMode!) == "p 0.9 nil")
        #expect(options[4].toolCallingMode.map(Transcript27Inventory.toolCallingKind) == .required)
        // The 26 name and the 27 name are one property.
        let deprecated = Transcript27Inventory.deprecatedSampling()
        #expect(deprecated.samplingMode == .random(top: 5))
        #expect(deprecated.temperature == 0.2)
    }

    @Test(.onTestThreads) func everyErrorCaseDescribesItself() {
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

    @Test(.onTestThreads) func builtInTypesAreGenerable() throws {
        let schemas = ConformanceInventory.schemas
        #expect(schemas.count == 8)
        #expect(ConformanceInventory.convertible([1, 2]).jsonString == "[1,2]")
        #expect(ConformanceInventory.partial(7) == 7)
    }

    @Test(.onTestThreads) func macroLeavesInitializedLetsOutOfTheSchema() throws {
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

    @Test(.onTestThreads) func schemasResolveTheirReferencesOrSayWhich() throws {
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

    @Test(.onTestThreads) func generatedContentKeepsOrderMergesAndParsesPartialJSON() throws {
        let contents = try SchemaInventory.content()
        #expect(contents[0].jsonString == #"{"name":"Ada","age":36}"#)
        #expect(try contents[1].value(Int.self, forProperty: "a") == 2)
        #expect(try contents[2].value([Int].self) == [1, 2, 3])
        #expect(!contents[3].isComplete)
        #expect(try contents[3].value(String.self, forProperty: "name") == "Ad")
    }

    @Test(.onTestThreads) func buildersJoinTheirParts() {
        let instructions = BuilderInventory.instructions(verbose: false, items: ["a", "b"])
        let text = Transcript.Instructions(segments: instructions.segments, toolDefinitions: []).description
        #expect(text.contains("Be brief."))
        #expect(!text.contains("Explain each step."))
        #expect(text.contains("Never book without asking."))
        let prompt = BuilderInventory.prompt(city: nil, trip: nil)
        #expect(!Transcript.Prompt(segments: prompt.segments).description.contains("Paris"))
    }

    @Test(.onTestThreads) func transcriptIsACollectionWithHistory() {
        let transcript = TranscriptInventory.transcript(tool: InventoryWeatherTool())
        #expect(transcript.count == 6)
        #expect(transcript.history.count == 5)  // the instructions are not history
        guard case .instructions(let instructions) = transcript.first else {
            Issue.record("the first entry is not the instructions")
            return
        }
        #expect(instructions.toolDefinitions.map(\.name) == ["getWeather", "echo"])
        let other = Transcript27Inventory.transcript(imageURL: URL(fileURLWithPath: "/tmp/none.png"))
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
        // `updateUsage(input:output:metadata:)` and `updateMetadata(_:)`, kept as generated content.
        #expect(response.usage.metadata["requests"] == GeneratedContent(1))
        guard case .response(let entry)? = response.transcriptEntries.last else {
            Issue.record("the last entry is not the response")
            return
        }
        #expect(entry.metadata["model"] == GeneratedContent("echo"))
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

    @Test(.onTestThreads) func theShippedChannelCarriesEveryActionAndItsMetadata() {
        let segment = Transcript.AttachmentSegment(
            content: .image(Transcript.ImageAttachment(imageURL: URL(fileURLWithPath: "/tmp/a.png"))), label: "a")
        let events = ChannelInventory.events(segment: segment)
        #expect(events.count == 18)
        let usage = ChannelInventory.usage()
        #expect(usage.metadata == ["k": GeneratedContent("v"), "more": GeneratedContent("x")])
        #expect(SeamInventory.request().metadata == ["source": GeneratedContent("inventory")])
    }

    @Test func aRefusalExplainsItself() async throws {
        let error = try await Session27Inventory.refusal()
        guard case .refusal(let refusal) = error else {
            Issue.record("not a refusal: \(error)")
            return
        }
        #expect(try await refusal.explanation.content == "I cannot help with that.")
        var snapshots: [String] = []
        for try await snapshot in refusal.explanationStream { snapshots.append(snapshot.content) }
        #expect(snapshots.last == "I cannot help with that.")
        #expect(refusal.metadata["policy"] as? String == "x")
    }

    @Test(.onTestThreads) func historyIsTheTranscriptWithoutItsInstructions() {
        var transcript = TranscriptInventory.transcript(tool: InventoryWeatherTool())
        let empty = Transcript27Inventory.history(&transcript)
        #expect(empty.isEmpty)
        #expect(transcript.count == 7)  // the history grew by one; the instructions stayed first
        guard case .instructions = transcript.first else {
            Issue.record("the instructions are no longer first")
            return
        }
    }

    @Test(.onTestThreads) func anImageReferenceFindsTheLatestImageWithItsLabel() throws {
        let first = URL(fileURLWithPath: "/tmp/first.png"), second = URL(fileURLWithPath: "/tmp/second.png")
        func prompt(_ url: URL) -> Transcript.Entry {
            .prompt(
                Transcript.Prompt(segments: [
                    .attachment(.init(content: .image(.init(imageURL: url)), label: "screenshot"))
                ]))
        }
        #expect(Attachment27Inventory.reference(in: Transcript(entries: [prompt(first), prompt(second)])) != nil)
        let reference = ImageReference(attachmentLabel: "screenshot")
        #expect(reference.resolved(in: [prompt(first), prompt(second)])?.url == second)
        #expect(ImageReference(attachmentLabel: "other").resolved(in: [prompt(first)]) == nil)
        #expect(try ImageReference(reference.generatedContent) == reference)
        let partial = try GeneratedContent(json: #"{"attachmentLabel": "scr"#)
        #expect(try Attachment27Inventory.partialReference(partial) == "scr")
    }

    @Test(.onTestThreads) func customSessionPropertiesKeepTheirValues() {
        let session = Profile27Inventory.sessions()[0]
        #expect(session.properties.inventoryAccount == "anonymous")
        Profile27Inventory.properties(session.properties)
        #expect(session.properties.inventoryAccount == "ada")
        #expect(Profile27Inventory.customKey(session.properties) == 1)
        #expect(Profile27Inventory.customKey(session.properties) == 2)
    }
}
