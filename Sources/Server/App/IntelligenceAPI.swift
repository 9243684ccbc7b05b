import ChatIntelligence
import ChatStore
import Foundation
import HTTPCore
import ServerKit

/// The routes of the model features beyond reply suggestions: writing tools, translation,
/// thread summaries, date actions, message search and search suggestions, and the jobs they
/// run as. Model work answers 202 with a job at once; its progress arrives as `job.updated`
/// frames on `/api/connect` and from `GET /api/jobs/{id}`.
struct IntelligenceAPI: Sendable {
    let store: ChatStore
    let model: ServerModel
    let jobs: ModelJobs

    /// The body of a translation request: the language, else the remembered one.
    static let translationBody =
        ##"{"type": "object", "properties": {"language": {"type": "string", "enum": \##(languageCodes)}}}"##

    /// The preference that remembers a user's translation language.
    static let translationLanguageKey = "translation_language"
    /// Messages a summary reads when the request does not say.
    static let defaultSummaryLength = 20

    func add(to routes: inout RouteList) {
        let ref = APIOperation.ref
        let jobAnswer = [
            APIOperation.Answer(
                202, "The job, queued; follow it on /api/connect or GET /api/jobs/{id}.", ref("JobEnvelope"))
        ]
        let messageIDSchema = ##"{"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$"}"##
        routes.add(
            "GET", "/api/model",
            APIOperation(
                id: "model",
                summary:
                    "Whether the local model is there for the AI features, and if not why and what to do; the writing tools and translation languages offered.",
                answers: [.init(200, "The model's state.", ref("ModelState"))])
        ) { _ in
            JSONBody.response(state)
        }
        routes.add(
            "POST", "/api/tools/writing",
            APIOperation(
                id: "writingTool",
                summary:
                    "Run a writing tool on a draft (proofread, rewrite, friendly, professional, concise, summarize, key_points). Nothing is sent: the result is for the composer's preview. 'attempt' picks another result for the same draft (Try again).",
                body: ##"""
                    {"type": "object", "required": ["tool", "text"], "properties": {
                      "tool": {"type": "string", "enum": \##(Self.toolNames)},
                      "text": {"type": "string", "minLength": 1, "maxLength": 4000, "pattern": "\\S"},
                      "attempt": {"type": "integer", "minimum": 0, "maximum": 1000}}}
                    """##,
                answers: jobAnswer, errors: [409])
        ) { context in
            let body = try JSONBody.decode(WritingRequest.self, from: context.request)
            guard let tool = WritingTool(rawValue: body.tool) else {
                throw APIError.badRequest(
                    "tool must be one of: \(WritingTool.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let text = try Self.draft(body.text)
            let attempt = body.attempt ?? 0
            guard (0...1000).contains(attempt) else { throw APIError.badRequest("attempt must be 0…1000") }
            let features = try features()
            return try job(
                "writing.\(tool.rawValue)", for: context.authenticatedUser,
                features.writing(tool, text: text, attempt: attempt))
        }
        routes.add(
            "GET", "/api/me/preferences",
            APIOperation(
                id: "preferences", summary: "Your preferences (the language messages are translated into).",
                answers: [.init(200, "Your preferences.", ref("Preferences"))])
        ) { context in
            await JSONBody.response(try preferences(of: context.authenticatedUser))
        }
        routes.add(
            "PUT", "/api/me/preferences",
            APIOperation(
                id: "setPreferences",
                summary: "Change your preferences; a field left out stays as it is, null clears it.",
                body:
                    ##"{"type": "object", "properties": {"translation_language": {"type": "string", "nullable": true, "enum": \##(Self.languageCodes)}}}"##,
                answers: [.init(200, "Your preferences.", ref("Preferences"))])
        ) { context in
            let user = context.authenticatedUser
            switch try JSONBody.decode(PreferencesUpdate.self, from: context.request).translationLanguage {
            case .keep: break
            case .clear: try await store.setPreference(Self.translationLanguageKey, to: nil, for: user)
            case .set(let code):
                guard let language = TranslationLanguage.named(code) else {
                    throw APIError.badRequest(
                        "translation_language must be one of: \(TranslationLanguage.all.map(\.code).joined(separator: ", "))"
                    )
                }
                try await store.setPreference(Self.translationLanguageKey, to: language.code, for: user)
            }
            return await JSONBody.response(try preferences(of: user))
        }
        routes.add(
            "POST", "/api/messages/{message_id}/translation",
            APIOperation(
                id: "translateMessage",
                summary:
                    "Translate a message of one of your channels into 'language' (default: your translation_language preference, else English).",
                body: Self.translationBody, bodyRequired: false, answers: jobAnswer, errors: [404, 409])
        ) { context in
            let user = context.authenticatedUser
            let body = try JSONBody.decode(
                TranslationRequest.self, from: context.request, emptyAs: TranslationRequest())
            let message = try await store.message(try messageID(context), for: user)
            let language = try await targetLanguage(body, for: user)
            let features = try features()
            return try job("translation", for: user, features.translation(message.text, into: language))
        }
        routes.add(
            "POST", "/api/assistant/conversations/{conversation_id}/messages/{message_id}/translation",
            APIOperation(
                id: "translateAssistantMessage",
                summary:
                    "Translate a message of one of your assistant conversations into 'language' (default: your translation_language preference, else English).",
                body: Self.translationBody, bodyRequired: false, answers: jobAnswer, errors: [404, 409])
        ) { context in
            let user = context.authenticatedUser
            let body = try JSONBody.decode(
                TranslationRequest.self, from: context.request, emptyAs: TranslationRequest())
            let text = try await assistantMessageText(context, for: user)
            let language = try await targetLanguage(body, for: user)
            let features = try features()
            return try job("translation", for: user, features.translation(text, into: language))
        }
        routes.add(
            "POST", "/api/messages/{message_id}/event",
            APIOperation(
                id: "messageEvent",
                summary:
                    "The event a message mentions ('Saturday 8am at the trailhead'), resolved against the message's own time in your time zone, with an iCalendar file to download.",
                body:
                    ##"{"type": "object", "required": ["time_zone"], "properties": {"time_zone": {"type": "string", "minLength": 1, "maxLength": 64, "example": "Europe/Paris"}}}"##,
                answers: jobAnswer, errors: [404, 409])
        ) { context in
            let user = context.authenticatedUser
            let body = try JSONBody.decode(EventRequest.self, from: context.request)
            guard body.time_zone.count <= 64, let zone = TimeZone(identifier: body.time_zone) else {
                throw APIError.badRequest("time_zone must be an IANA time zone such as Europe/Paris")
            }
            let message = try await store.message(try messageID(context), for: user)
            let author = try await store.user(message.author)?.name ?? message.author.rawValue
            let features = try features()
            return try job("event", for: user, features.event(in: message, author: author, timeZone: zone))
        }
        routes.add(
            "POST", "/api/channels/{cid}/summary",
            APIOperation(
                id: "summarizeChannel",
                summary:
                    "Summarize the messages after 'after' (the unread part: the last message you had read), or the last 'last' messages (default 20), naming who said what; with 'thread', that thread (its first message and newest replies) instead.",
                body: ##"""
                    {"type": "object", "properties": {
                      "after": \##(messageIDSchema),
                      "thread": \##(messageIDSchema),
                      "last": {"type": "integer", "minimum": 1, "maximum": \##(ThreadSummarizer.messageLimit)}}}
                    """##,
                bodyRequired: false, answers: jobAnswer, errors: [404, 409])
        ) { context in
            let user = context.authenticatedUser
            let body = try JSONBody.decode(SummaryRequest.self, from: context.request, emptyAs: SummaryRequest())
            let cid = try ChannelID.parse(context.parameter("cid"))
            let after = try body.after.map { try MessageID.validated($0, field: "after") }
            let count = body.last ?? (after == nil ? Self.defaultSummaryLength : ThreadSummarizer.messageLimit)
            guard (1...ThreadSummarizer.messageLimit).contains(count) else {
                throw APIError.badRequest("last must be 1…\(ThreadSummarizer.messageLimit)")
            }
            let detail = try await store.channelDetail(cid, for: user)
            let messages: [Message]
            if let thread = try body.thread.map({ try MessageID.validated($0, field: "thread") }) {
                let root = try await store.threadRoot(of: thread, for: user)
                guard root.cid == cid else { throw ChatStoreError.notFound(what: "message", id: thread.rawValue) }
                messages = try await store.recentThreadMessages(of: root.id, limit: count)
            } else {
                messages = try await store.messages(in: cid, for: user, after: after, limit: count)
            }
            guard !messages.isEmpty else {
                throw APIError.badRequest("there are no messages to summarize", code: "nothing_to_summarize")
            }
            let names = Dictionary(detail.members.map { ($0.user.id, $0.user.name) }, uniquingKeysWith: { a, _ in a })
            let lines = messages.map { message in
                ChatMessage(
                    author: Participant(
                        id: message.author.rawValue, name: names[message.author] ?? message.author.rawValue),
                    text: message.text)
            }
            let features = try features()
            return try job("summary", for: user, features.summary(of: lines))
        }
        routes.add(
            "GET", "/api/search",
            APIOperation(
                id: "searchMessages",
                summary:
                    "Search the messages of your channels: every word of q as a prefix, ranked by words matched (whole words first), the whole query as a phrase, then newest first.",
                query: [
                    .init("q", ##"{"type": "string", "minLength": 1, "maxLength": 200}"##),
                    .init("limit", ##"{"type": "integer", "minimum": 1, "maximum": 50, "default": 20}"##),
                ],
                answers: [.init(200, "Matches, best first.", ref("SearchResults"))])
        ) { context in
            guard let query = context.query["q"], query.count <= 200 else {
                throw APIError.badRequest("q is required: at most 200 characters")
            }
            var limit = 20
            if let text = context.query["limit"] {
                guard let value = Int(text), (1...ChatStore.maxSearchResults).contains(value) else {
                    throw APIError.badRequest("limit must be an integer from 1 to \(ChatStore.maxSearchResults)")
                }
                limit = value
            }
            let results = try await store.searchMessages(query, for: context.authenticatedUser, limit: limit)
            return JSONBody.response(SearchResponse(query: query, results: results))
        }
        routes.add(
            "POST", "/api/search/suggestions",
            APIOperation(
                id: "suggestSearches",
                summary: "Four search terms for a topic, drawn from your own messages where the model can.",
                body:
                    ##"{"type": "object", "required": ["topic"], "properties": {"topic": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "\\S"}}}"##,
                answers: jobAnswer, errors: [409])
        ) { context in
            let user = context.authenticatedUser
            let body = try JSONBody.decode(SearchSuggestionsRequest.self, from: context.request)
            let topic = body.topic.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !topic.isEmpty, topic.count <= 200 else {
                throw APIError.badRequest("topic must have some text, at most 200 characters")
            }
            let features = try features()
            return try await job(
                "search_suggestions", for: user,
                features.searchSuggestions(for: topic, messages: try sample(for: topic, user: user)))
        }
        routes.add(
            "GET", "/api/jobs/{job_id}",
            APIOperation(
                id: "job", summary: "Where one of your model jobs stands, with its result so far.",
                answers: [.init(200, "The job.", ref("JobEnvelope"))], errors: [404])
        ) { context in
            JSONBody.response(
                JobResponse(job: try jobs.snapshot(context.parameter("job_id"), for: context.authenticatedUser)))
        }
        routes.add(
            "DELETE", "/api/jobs/{job_id}",
            APIOperation(
                id: "cancelJob",
                summary: "Cancel one of your model jobs (Dismiss, Try again); a finished job stays as it is.",
                answers: [.init(200, "The job.", ref("JobEnvelope"))], errors: [404])
        ) { context in
            JSONBody.response(
                JobResponse(job: try jobs.cancel(context.parameter("job_id"), for: context.authenticatedUser)))
        }
    }

    /// What the web app needs to know about the model.
    var state: ModelState {
        ModelState(model)
    }

    private func features() throws -> ModelFeatures {
        ModelFeatures(try model.required())
    }

    private func job(_ kind: String, for user: UserID, _ work: @escaping ModelJobs.Work) throws -> HTTPResponse {
        JSONBody.response(JobResponse(job: try jobs.start(kind, for: user, work: work)), status: 202)
    }

    private func messageID(_ context: RequestContext) throws -> MessageID {
        try MessageID.validated(context.parameter("message_id"), field: "message_id")
    }

    /// The text of a message in one of `user`'s assistant conversations; another user's ids are
    /// "not found", as missing ones are.
    private func assistantMessageText(_ context: RequestContext, for user: UserID) async throws -> String {
        let conversation: String
        let id: String
        do {
            conversation = try ChatStore.validatedAssistantID(
                context.parameter("conversation_id"), field: "conversation_id")
            id = try ChatStore.validatedAssistantID(context.parameter("message_id"), field: "message_id")
        } catch let error as ChatStoreError {
            throw APIError.badRequest(error.description)
        }
        let messages = try await store.assistantMessages(in: conversation, for: user)
        guard let message = messages.first(where: { $0.id == id }), !message.text.isEmpty else {
            throw ChatStoreError.notFound(what: "message", id: id)
        }
        return message.text
    }

    /// The language a translation asks for, else the user's remembered one, else English.
    private func targetLanguage(_ body: TranslationRequest, for user: UserID) async throws -> TranslationLanguage {
        var requested = body.language
        if requested == nil { requested = try await store.preference(Self.translationLanguageKey, for: user) }
        let code = requested ?? "en"
        guard let language = TranslationLanguage.named(code) else {
            throw APIError.badRequest(
                "language must be one of: \(TranslationLanguage.all.map(\.code).joined(separator: ", "))")
        }
        return language
    }

    private func preferences(of user: UserID) async throws -> PreferencesResponse {
        await PreferencesResponse(translation_language: try store.preference(Self.translationLanguageKey, for: user))
    }

    /// What the search suggester reads: the user's messages that match the topic, then the
    /// newest messages of their most recent channels.
    private func sample(for topic: String, user: UserID) async throws -> [String] {
        var texts = await (try? store.searchMessages(topic, for: user, limit: 12))?.map(\.message.text) ?? []
        for summary in try await store.channels(for: user).prefix(3) where texts.count < SearchSuggester.messageLimit {
            for message in try await store.recentMessages(in: summary.channel.cid, limit: 8).reversed()
            where !texts.contains(message.text) && texts.count < SearchSuggester.messageLimit {
                texts.append(message.text)
            }
        }
        return texts
    }

    /// A draft as the writing tools take it: some text, at most a message's length.
    static func draft(_ text: String) throws -> String {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError.badRequest("text must have some text in it")
        }
        guard text.unicodeScalars.count <= ChatStore.maxMessageLength else {
            throw APIError.badRequest("text is longer than \(ChatStore.maxMessageLength) characters")
        }
        return text
    }

    static var toolNames: String { jsonArray(WritingTool.allCases.map(\.rawValue)) }
    static var languageCodes: String { jsonArray(TranslationLanguage.all.map(\.code)) }

    private static func jsonArray(_ values: [String]) -> String {
        "[" + values.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
    }
}

struct WritingRequest: Decodable {
    var tool: String
    var text: String
    var attempt: Int?
}

struct TranslationRequest: Decodable {
    var language: String?
}

struct EventRequest: Decodable {
    var time_zone: String
}

struct SummaryRequest: Decodable {
    var after: String?
    var last: Int?
    /// A thread's first message: the thread is summarized instead of the channel.
    var thread: String?
}

struct SearchSuggestionsRequest: Decodable {
    var topic: String
}

/// A preferences body: a field that is absent and a field that is null mean different things
/// (keep it, clear it), which `Decodable`'s optionals cannot tell apart.
struct PreferencesUpdate: Decodable {
    enum Change {
        case keep, clear
        case set(String)
    }

    var translationLanguage = Change.keep

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if container.contains(.translationLanguage) {
            translationLanguage =
                try container.decodeNil(forKey: .translationLanguage)
                ? .clear : .set(try container.decode(String.self, forKey: .translationLanguage))
        }
    }

    enum Key: String, CodingKey {
        case translationLanguage = "translation_language"
    }
}

struct PreferencesResponse: Encodable {
    var translation_language: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: PreferencesUpdate.Key.self)
        // Present as null when unset, so clients see the field.
        try container.encode(translation_language, forKey: .translationLanguage)
    }
}

struct JobResponse: Encodable {
    var job: JobSnapshot
}

struct SearchResponse: Encodable {
    var query: String
    var results: [SearchHit]
}
