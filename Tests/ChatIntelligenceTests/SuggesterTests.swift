import EngineClient
import Foundation
import FoundationModels
import LocalEngine
import ModelStore
import Synchronization
import TestSupport
import Testing

@testable import ChatIntelligence

/// An engine that answers every request with the same text and records the requests (a test
/// double of the seam between `SystemLanguageModel` and the engine service).
final class CannedBackend: SystemModelEngine {
    private let reply: String
    private let recorded = Mutex<[LanguageModelExecutorGenerationRequest]>([])
    private let prewarms = Mutex<[LanguageModelExecutorGenerationRequest]>([])
    private let file: URL

    init(reply: String) {
        self.reply = reply
        file = FileManager.default.temporaryDirectory.appendingPathComponent("canned-\(UUID().uuidString).gguf")
        precondition(
            FileManager.default.createFile(atPath: file.path, contents: Data(count: 16)), "cannot create \(file.path)")
    }

    deinit {
        try? FileManager.default.removeItem(at: file)
    }

    /// A system model (on a stand-in file) whose requests this engine answers.
    var model: SystemLanguageModel {
        SystemLanguageModel(
            model: .path(file.path), contextSize: nil,
            backend: SystemModelBackend(locator: StoreModelLocator(store: ModelStore()), engine: self))
    }

    var requests: [LanguageModelExecutorGenerationRequest] { recorded.withLock { $0 } }
    var prewarmed: [LanguageModelExecutorGenerationRequest] { prewarms.withLock { $0 } }

    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: SystemModelTarget,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        recorded.withLock { $0.append(request) }
        await channel.send(.response(action: .appendText(reply, tokenCount: 10)))
    }

    func prewarm(model: SystemModelTarget, transcript: Transcript) {
        prewarms.withLock { $0.append(LanguageModelExecutorGenerationRequest(transcript: transcript)) }
    }

    func tokenCount(_ subject: TokenCountSubject, model: SystemModelTarget) async throws -> Int { 0 }
    func contextSize(of model: SystemModelTarget) -> Int? { 4096 }
    func state(of model: SystemModelTarget) -> EngineModelState { .notLoaded }
    func observeStates(_ handler: @escaping @Sendable () -> Void) -> EngineObservation { EngineObservation {} }
    var unreachableReason: String? { nil }
}

@Suite struct SuggesterTests {
    let conversation = [
        message(People.alice, "Are we still on for the hike?"),
        message(People.bob, "Yeah! Saturday morning works for me."),
    ]

    @Test func unavailableModelGivesNoRow() async throws {
        let missing = SystemLanguageModel(model: .path("/nonexistent/sotto-model.gguf"))
        let suggester = ReplyDrafter(model: missing)
        #expect(!suggester.isAvailable)
        #expect(try await suggester.suggestions(replyingTo: conversation, as: People.alice) == nil)
    }

    @Test func nothingWhenTheUserSpokeLastOrNobodySpoke() async throws {
        let backend = CannedBackend(reply: #"{"tone":"casual","replies":["A.","B.","C."]}"#)
        let suggester = ReplyDrafter(model: backend.model)
        #expect(try await suggester.suggestions(replyingTo: conversation, as: People.bob) == nil)
        #expect(try await suggester.suggestions(replyingTo: [], as: People.alice) == nil)
        #expect(backend.requests.isEmpty)
        #expect(ReplyDrafter.wantsReply(conversation, user: People.alice))
        #expect(!ReplyDrafter.wantsReply(conversation, user: People.bob))
    }

    /// What the model is asked: the conversation, for this user, in this tone, after worked
    /// examples whose answers have the schema's shape, with the schema constraining the answer;
    /// what comes back is cleaned (a "User:" label dropped, a repeated line of the conversation
    /// dropped).
    @Test func asksForThisConversationUserAndToneAndCleansTheAnswer() async throws {
        let backend = CannedBackend(
            reply:
                #"{"tone":"casual","replies":["Can't wait!","Alice: What time?","Yeah! Saturday morning works for me."]}"#
        )
        let suggester = ReplyDrafter(model: backend.model)
        let replies = try await suggester.suggestions(replyingTo: conversation, as: People.alice, tone: .formal)
        #expect(replies == ["Can't wait!", "What time?"])

        let request = try #require(backend.requests.first)
        let messages = request.messages
        #expect(messages.map(\.role) == [.system, .user, .assistant, .user, .assistant, .user, .assistant, .user])
        let prompt = try #require(messages.last?.content)
        #expect(prompt.contains("Alice: Are we still on for the hike?\nBob: Yeah! Saturday morning works for me."))
        #expect(prompt.contains("The user is Alice.") && prompt.contains("answering Bob"))
        #expect(prompt.contains("polite and formal"))
        // Every worked example's answer is three replies of the schema's shape.
        let schema = try #require(request.schema)
        #expect(schema.jsonSchemaString.contains(#""minItems":3"#))
        for answer in messages.filter({ $0.role == .assistant }) {
            let example = try ReplySuggestions(GeneratedContent(json: answer.content))
            #expect(example.replies.count == 3)
        }
        // Sampling is seeded: the same conversation gets the same request, hence the same replies.
        _ = try await suggester.suggestions(replyingTo: conversation, as: People.alice, tone: .formal)
        let again = try #require(backend.requests.last)
        #expect(
            backend.requests.count == 2 && again.messages == messages
                && again.generationOptions == request.generationOptions)
        // Another user and tone change the prompt, never the instructions (a shared cached prefix).
        _ = try await suggester.suggestions(replyingTo: conversation + [message(People.alice, "Great")], as: People.bob)
        let other = try #require(backend.requests.last)
        #expect(other.messages.first == messages.first)
        #expect(other.messages.last?.content.contains("The user is Bob.") == true)
        #expect(other.messages.last?.content.contains("casual") == true)
    }

    @Test func prewarmingRunsTheFixedStartOfEveryRequest() async throws {
        let backend = CannedBackend(reply: #"{"tone":"casual","replies":["Sure!","Nope.","Maybe?"]}"#)
        let suggester = ReplyDrafter(model: backend.model)
        suggester.prewarm()
        for _ in 0..<200 where backend.prewarmed.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        let warmed = try #require(backend.prewarmed.first).messages
        _ = try await suggester.suggestions(replyingTo: conversation, as: People.alice)
        let asked = try #require(backend.requests.first).messages
        #expect(warmed.count == 7)
        #expect(asked.count == 8 && Array(asked.prefix(7)) == warmed)

        ReplyDrafter(model: SystemLanguageModel(model: .path("/nonexistent/sotto-model.gguf"))).prewarm()  // no-op
    }

    @Test func eachRequestStartsAFreshSession() async throws {
        let backend = CannedBackend(reply: #"{"tone":"casual","replies":["Sure!","Nope.","Maybe?"]}"#)
        let suggester = ReplyDrafter(model: backend.model)
        _ = try await suggester.suggestions(replyingTo: conversation, as: People.alice)
        _ = try await suggester.suggestions(
            replyingTo: conversation + [message(People.bob, "Bring water")], as: People.alice)
        // The same instructions and examples open both requests: a prefix the engine can reuse.
        let prefixes = backend.requests.map { Array($0.messages.dropLast()) }
        #expect(prefixes.count == 2 && prefixes[0] == prefixes[1] && prefixes[0].count == 7)
    }

    @Test func schemaFollowsTheConversationsScript() async throws {
        let backend = CannedBackend(reply: #"{"tone":"casual","replies":["好的！","不行。","几点？"]}"#)
        let suggester = ReplyDrafter(model: backend.model)
        let latin = try await suggester.suggestions(replyingTo: conversation, as: People.alice)
        let chinese = try await suggester.suggestions(replyingTo: [message(People.bob, "周六去爬山吗？")], as: People.alice)
        #expect(latin == ["好的！", "不行。", "几点？"])  // the canned backend ignores the schema
        #expect(chinese == ["好的！", "不行。", "几点？"])
        let titles = backend.requests.map { $0.schema?.jsonSchemaString.contains(#""title":"CJKReplySuggestions""#) }
        #expect(titles == [false, true])
    }

    @Test func nilWhenNothingUsableCameOut() async throws {
        let backend = CannedBackend(
            reply: #"{"tone":"casual","replies":["Bob: Sure","Yeah! Saturday morning works for me."," "]}"#)
        let suggester = ReplyDrafter(model: backend.model)
        #expect(try await suggester.suggestions(replyingTo: conversation, as: People.alice) == nil)
    }
}

@Suite struct SchemaTests {
    /// The pattern every reply of `schema` must match, as the prompt and the engine see it.
    func replyPattern(_ schema: GenerationSchema) throws -> Regex<AnyRegexOutput> {
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(schema.jsonSchemaString.utf8)) as? [String: Any])
        let properties = try #require(json["properties"] as? [String: Any])
        let replies = try #require(properties["replies"] as? [String: Any])
        #expect(replies["minItems"] as? Int == 3)
        #expect(replies["maxItems"] as? Int == 3)
        let items = try #require(replies["items"] as? [String: Any])
        return try Regex(try #require(items["pattern"] as? String))
    }

    @Test(.onTestThreads) func repliesAreOneSentenceOfAtMostEightWords() throws {
        let regex = try replyPattern(ReplySuggestions.generationSchema)
        let accepted = [
            "Sounds good!", "one two three four five six seven eight", "Sure, see you at 3:30?", "¡Claro que sí!",
            "Bien sûr, j'arrive !", "Can't wait!!", "Let's do it 🎉", "Ja, gerne.", "Okay",
        ]
        for reply in accepted { #expect(reply.wholeMatch(of: regex) != nil, "\(reply)") }
        let rejected = [
            "one two three four five six seven eight nine", "Sure! See you then.", "really,really,hard",
            "I'll try.findsomething", "two  spaces", "line\nbreak", " leading", "trailing ", "", #"a "quote""#,
            "back\\slash", "我们 周六见", "I'll try,谢谢", "sorry，later", "!", "a-very-long-glued-togetherword",
            "That sounds perfect.!", "Okay..", "Let me try a different version of …", "Hmm…",
        ]
        for reply in rejected { #expect(reply.wholeMatch(of: regex) == nil, "\(reply)") }
    }

    @Test(.onTestThreads) func cjkConversationsGetTheirOwnScript() throws {
        let regex = try replyPattern(CJKReplySuggestions.generationSchema)
        #expect("好的，周六见！".wholeMatch(of: regex) != nil)
        #expect("はい、行きます！".wholeMatch(of: regex) != nil)
        #expect("one two three four five six seven eight nine".wholeMatch(of: regex) == nil)
        #expect(CJKReplySuggestions.isCJK("周六见"))
        #expect(CJKReplySuggestions.isCJK("안녕하세요"))
        #expect(CJKReplySuggestions.isCJK("カタカナ"))
        #expect(!CJKReplySuggestions.isCJK("¡Hola! Ça va? Grüß dich 👋"))
    }

    @Test(.onTestThreads) func theDescriptionAsksForLessThanTheBound() {
        #expect(ReplySuggestions.generationSchema.jsonSchemaString.contains("2 to 5 words"))
    }
}
