import FoundationModels
import GenerableFixtures
import TestSupport
import Testing

@Suite struct GenerableMacroTests {
    @Test(.onTestThreads) func structRoundTripsThroughGeneratedContent() throws {
        let suggestions = ReplySuggestions(replies: ["Sure!", "Sounds good", "Maybe later"])
        let content = suggestions.generatedContent
        #expect(content.jsonString == #"{"replies":["Sure!","Sounds good","Maybe later"]}"#)
        let decoded = try ReplySuggestions(content)
        #expect(decoded.replies == suggestions.replies)
    }

    @Test(.onTestThreads) func memberwiseInitializerSurvives() {
        let thing = PublicThing(value: 3)
        #expect(thing.generatedContent.jsonString == #"{"value":3}"#)
    }

    @Test(.onTestThreads) func optionalPropertyIsLeftOutWhenNil() throws {
        let character = Character(name: "Ada", age: 36, mood: .positive, nickname: nil)
        #expect(character.generatedContent.jsonString == #"{"name":"Ada","age":36,"mood":"positive"}"#)
        let parsed = try Character(GeneratedContent(json: #"{"name":"Ada","age":36,"mood":"neutral","nickname":"A"}"#))
        #expect(parsed.nickname == "A")
        #expect(parsed.mood == .neutral)
    }

    @Test(.onTestThreads) func simpleEnumIsAString() throws {
        #expect(Sentiment.negative.generatedContent == GeneratedContent("negative"))
        #expect(try Sentiment(GeneratedContent("neutral")) == .neutral)
        #expect(throws: LanguageModelSession.GenerationError.self) { try Sentiment(GeneratedContent("angry")) }
    }

    @Test(.onTestThreads) func enumWithAssociatedValuesRoundTrips() throws {
        let actions: [NextAction] = [
            .reply(text: "On my way"), .wait(minutes: 5), .remind("Call Bob", at: 9), .nothing,
        ]
        for action in actions {
            let decoded = try NextAction(action.generatedContent)
            #expect(decoded.generatedContent == action.generatedContent)
        }
        #expect(NextAction.reply(text: "Hi").generatedContent.jsonString == #"{"reply":{"text":"Hi"}}"#)
        #expect(NextAction.remind("x", at: 2).generatedContent.jsonString == #"{"remind":{"_0":"x","at":2}}"#)
        #expect(NextAction.nothing.generatedContent.jsonString == #""nothing""#)
    }

    @Test(.onTestThreads) func generationIDPropertyCarriesTheContentID() throws {
        let id = GenerationID()
        let content = GeneratedContent(
            properties: [
                "title": "T", "characters": [Character](), "hashtag": "#t", "genre": "mystery", "rating": 4.5,
            ], id: id)
        let story = try Story(content)
        #expect(story.id == id)
        #expect(story.generatedContent.id == id)
        #expect(story.generatedContent.jsonString.contains("\"id\"") == false)
    }

    @Test(.onTestThreads) func partiallyGeneratedFillsInFromPartialJSON() throws {
        let partial = try GeneratedContent(json: #"{"replies": ["Sure", "See y"#)
        let snapshot = try ReplySuggestions.PartiallyGenerated(partial)
        #expect(snapshot.replies == ["Sure", "See y"])

        let early = try ReplySuggestions.PartiallyGenerated(GeneratedContent(json: #"{"repl"#))
        #expect(early.replies == nil)
    }

    @Test(.onTestThreads) func partiallyGeneratedNestsPartialTypes() throws {
        let partial = try GeneratedContent(json: #"{"title":"Night","characters":[{"name":"Ad"#)
        let story = try Story.PartiallyGenerated(partial)
        #expect(story.title == "Night")
        #expect(story.characters?.count == 1)
        #expect(story.characters?.first?.name == "Ad")
        #expect(story.characters?.first?.age == nil)
        #expect(story.hashtag == nil)
    }

    @Test(.onTestThreads) func asPartiallyGeneratedKeepsValues() {
        let partial = ReplySuggestions(replies: ["a", "b", "c"]).asPartiallyGenerated()
        #expect(partial.replies == ["a", "b", "c"])
        #expect(Sentiment.positive.asPartiallyGenerated() == .positive)
    }
}

@Suite struct GenerableShapesTests {
    @Test(.onTestThreads) func genericTypeWorks() throws {
        let page = try Page<Sentiment>(GeneratedContent(json: #"{"items": ["positive", "negative"], "next": 2}"#))
        #expect(page.items == [.positive, .negative])
        #expect(page.next == 2)
        let partial = try Page<Sentiment>.PartiallyGenerated(GeneratedContent(json: #"{"items": ["positive", "neg"#))
        #expect(partial.items == [.positive])
        guard case .object(let object) = Page<Sentiment>.generationSchema.root else {
            Issue.record("expected an object")
            return
        }
        #expect(
            object.properties[0].node == .array(element: .reference("Sentiment"), minimumCount: nil, maximumCount: nil))
    }

    @Test(.onTestThreads) func privateAndNestedTypesWork() throws {
        #expect(try filePrivateNoteText(json: #"{"text": "x"}"#) == "x")
        #expect(try Outer.Inner(GeneratedContent(json: #"{"value": true}"#)).value)
        guard case .object(let object) = Outer.Inner.generationSchema.root else {
            Issue.record("expected an object")
            return
        }
        #expect(object.name == "Outer.Inner")
    }
}
