import Foundation
import FoundationModels
import TestSupport
import Testing

// App code as it is written for Apple's SDK: this file imports only Foundation and
// FoundationModels (not Observation) and uses @Observable, which FoundationModels re-exports.

@Observable
@MainActor
final class ChatViewModel {
    var messages: [String] = []
    var isThinking = false
    let session: LanguageModelSession

    init(session: LanguageModelSession) {
        self.session = session
    }

    func send(_ text: String) async throws {
        isThinking = true
        defer { isThinking = false }
        messages.append(text)
        messages.append(try await session.respond(to: text).content)
    }
}

/// `@Generable` with constants that have their values, as in Apple's samples (`let id = UUID()`):
/// they are the type's own, left out of the schema, `init(_:)` and `PartiallyGenerated`.
@Generable
struct Itinerary {
    let id = UUID()
    let version: Int = 2
    @Guide(description: "Where to go")
    var destination: String
    var days: Int
}

@MainActor
@Suite struct ObservableAppCodeTests {
    @Test func observableThroughFoundationModelsAlone() async throws {
        let model = ScriptedModel(turns: [.text("Hello!")])
        let viewModel = ChatViewModel(session: LanguageModelSession(model: model))
        let changes = Counter()
        withObservationTracking {
            _ = viewModel.messages
        } onChange: {
            changes.increment()
        }
        try await viewModel.send("Hi")
        #expect(changes.value == 1)
        #expect(viewModel.messages == ["Hi", "Hello!"])
        #expect(!viewModel.isThinking)
    }

    @Test(.onTestThreads) func generableWithInitializedConstants() throws {
        let schema = Itinerary.generationSchema.jsonSchemaString
        #expect(schema.contains(#""destination""#) && schema.contains(#""days""#))
        #expect(!schema.contains(#""id""#) && !schema.contains(#""version""#))

        let trip = Itinerary(destination: "Lisbon", days: 3)
        #expect(trip.generatedContent.jsonString == #"{"destination":"Lisbon","days":3}"#)
        let decoded = try Itinerary(GeneratedContent(json: #"{"destination":"Porto","days":2}"#))
        #expect(decoded.destination == "Porto" && decoded.days == 2 && decoded.version == 2)
        #expect(decoded.id != trip.id)  // each value makes its own

        let partial = try Itinerary.PartiallyGenerated(GeneratedContent(json: #"{"destination":"Fa"#))
        #expect(partial.destination == "Fa" && partial.days == nil)
    }
}
