import Foundation
import FoundationModels
import GenerableFixtures
import TestSupport
import Testing

/// Code shaped exactly like Apple's documentation and sample code, compiled and run against
/// Sotto's module.
@Suite struct AppleUsageTests {
    /// What an app shows for each availability state, as in Apple's samples.
    private func message(for model: SystemLanguageModel) -> String {
        switch model.availability {
        case .available:
            return "ready"
        case .unavailable(.deviceNotEligible):
            return "This device can't run the model."
        case .unavailable(.appleIntelligenceNotEnabled):
            return "Turn the model on in settings."
        case .unavailable(.modelNotReady):
            return "The model is downloading."
        case .unavailable(let other):
            return "Unavailable: \(other)"
        }
    }

    @Test(.onTestThreads) func switchingOnAvailabilityReasons() throws {
        let missing = SystemLanguageModel.stub(.path("/nonexistent/model.gguf"), locator: StubLocator())
        #expect(message(for: missing) == "The model is downloading.")
        #expect(missing.availability != .available)
        let ready = SystemLanguageModel.stub(
            .id("smollm2-135m"), locator: StubLocator(files: [.id("smollm2-135m"): 1000]),
            engine: StubEngine(contextSize: 8192))
        #expect(message(for: ready) == "ready")
        #expect(ready.availability == .available)
        #expect(ready.isAvailable)
        #expect(ready.contextSize == 8192)
    }

    @Test(.onTestThreads) func modelInitializersAndProperties() throws {
        let model = SystemLanguageModel(useCase: .contentTagging, guardrails: .permissiveContentTransformations)
        #expect(model.useCase == .contentTagging)
        #expect(SystemLanguageModel.default.useCase == .general)
        #expect(SystemLanguageModel(model: .id("smollm2-135m")).contextSize == 4096)
        #expect(SystemLanguageModel(model: .id("smollm2-135m"), contextSize: 2048).contextSize == 2048)
        // The two ways of asking agree: every supported language's locales are supported, and a
        // locale whose language is not in the set is not.
        for language in model.supportedLanguages {
            let code = try #require(language.languageCode?.identifier, "\(language)")
            #expect(model.supportsLocale(Locale(identifier: code)), "\(language.maximalIdentifier)")
        }
        #expect(model.supportedLanguages.contains(Locale.Language(identifier: "en")))
        #expect(model.supportsLocale(Locale(identifier: "fr_FR")))
        for unsupported in ["fi_FI", "hu_HU", "el_GR"] {
            let locale = Locale(identifier: unsupported)
            #expect(!model.supportsLocale(locale))
            #expect(!model.supportedLanguages.contains { $0.languageCode == locale.language.languageCode })
        }
    }

    @Test func instructionsAndPromptBuilders() async throws {
        let backend = ScriptedModel(turns: [.text("ok")])
        let formal = true
        let session = LanguageModelSession(model: backend) {
            "You suggest replies to chat messages."
            if formal {
                "Use a formal tone."
            } else {
                "Be casual."
            }
        }
        let messages = ["Hi!", "Are you free Saturday?"]
        try await session.respond(options: GenerationOptions(temperature: 0.7)) {
            "Suggest a reply to this conversation:"
            for message in messages {
                message
            }
            ReplySuggestions(replies: ["a", "b", "c"])
        }
        let request = try #require(backend.requests.first)
        #expect(
            request.transcript.texts == [
                "You suggest replies to chat messages.\nUse a formal tone.",
                "Suggest a reply to this conversation:\nHi!\nAre you free Saturday?\n" + #"{"replies":["a","b","c"]}"#,
            ])
        #expect(request.generationOptions.temperature == 0.7)
    }

    @Test func fourSearchTerms() async throws {
        let backend = ScriptedModel(turns: [.text(#"{"searchTerms":["trail","hike","boots","map"]}"#)])
        let session = LanguageModelSession(model: backend)
        let response = try await session.respond(to: "Hiking conversation", generating: SearchSuggestions.self)
        #expect(response.content.searchTerms == ["trail", "hike", "boots", "map"])
        guard
            case .array(_, let minimum, let maximum)? = backend.requests.first.flatMap({ request -> SchemaNode? in
                guard case .object(let object)? = request.schema?.root else { return nil }
                return object.properties.first?.node
            })
        else {
            Issue.record("expected an array property")
            return
        }
        #expect(minimum == 4 && maximum == 4)
    }

    @Test func generatingAnEnumAndNestedTypes() async throws {
        let backend = ScriptedModel(turns: [
            .text(#""negative""#),
            .text(
                ##"{"title":"Night Train","characters":[{"name":"Ada","age":36,"mood":"positive"}],"hashtag":"#train","genre":"mystery","rating":4.5}"##
            ),
        ])
        let session = LanguageModelSession(model: backend)
        let sentiment = try await session.respond(to: "I hate rain.", generating: Sentiment.self).content
        #expect(sentiment == .negative)
        let story = try await session.respond(to: "Write a story", generating: Story.self).content
        #expect(story.characters.first?.mood == .positive)
        #expect(story.characters.first?.nickname == nil)
        #expect(story.rating == 4.5)
    }

    @Test(.onTestThreads) func samplingModes() {
        let greedy = GenerationOptions(sampling: .greedy)
        let topK = GenerationOptions(sampling: .random(top: 40, seed: 7), temperature: 0.8, maximumResponseTokens: 100)
        let nucleus = GenerationOptions(sampling: .random(probabilityThreshold: 0.9))
        #expect(greedy.sampling == .greedy)
        #expect(topK.sampling == .random(top: 40, seed: 7))
        #expect(topK.sampling != .random(top: 40))
        #expect(nucleus.sampling == .random(probabilityThreshold: 0.9, seed: nil))
        #expect(GenerationOptions() == GenerationOptions(sampling: nil, temperature: nil, maximumResponseTokens: nil))
    }

    @Test(.onTestThreads) func errorsDescribeThemselves() {
        let error = LanguageModelSession.GenerationError.exceededContextWindowSize(
            .init(debugDescription: "Content contains 9056 tokens"))
        #expect(error.errorDescription != nil)
        #expect(error.failureReason == "Content contains 9056 tokens")
        #expect(error.recoverySuggestion != nil)
        #expect(error.localizedDescription == error.errorDescription)
    }
}
