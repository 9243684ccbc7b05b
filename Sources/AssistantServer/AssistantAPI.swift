import ChatStore
import Foundation
import FoundationModels
import HTTPCore
import ServerKit

/// The assistant's routes, under `/api/assistant/`: a user's private conversations with the
/// local model. Every route is authenticated and scoped to its owner: another user's
/// conversation is not found, exactly as a missing one.
package struct AssistantAPI: Sendable {
    package let store: ChatStore
    package let engine: AssistantEngine
    package let modelState: @Sendable () -> ModelState
    /// The largest image a conversation takes (the upload route's body limit).
    package var maxImageBytes = AssistantAPI.defaultMaxImageBytes
    /// The image model images are made with on request; nil: none (the route answers 404).
    package var imageGeneration: ImageGeneration? = nil
    package let imageGate = ImageGenerationGate()

    package init(
        store: ChatStore, engine: AssistantEngine, modelState: @escaping @Sendable () -> ModelState,
        maxImageBytes: Int = AssistantAPI.defaultMaxImageBytes, imageGeneration: ImageGeneration? = nil
    ) {
        self.store = store
        self.engine = engine
        self.modelState = modelState
        self.maxImageBytes = maxImageBytes
        self.imageGeneration = imageGeneration
    }

    package static let defaultTitle = "New chat"
    /// Longest message a user sends, in characters.
    package static let maxMessageLength = 4000

    /// The preferences the assistant's settings are kept under.
    package enum Setting: String, CaseIterable {
        case stream = "assistant.stream"
        case showTokens = "assistant.show_tokens"
        case language = "assistant.language"
        case appearance = "assistant.appearance"
    }

    package static let appearances = ["system", "light", "dark"]

    package var model: ServerModel { engine.model }

    package func add(to routes: inout RouteList) {
        let ref = AssistantOpenAPI.ref
        routes.add(
            "GET", "/api/assistant",
            APIOperation(
                id: "assistant",
                summary:
                    "The assistant's state for you: the model's state, the personas and response languages offered, your settings, and the conversation you opened last (to open again).",
                answers: [.init(200, "The assistant's state.", ref("AssistantState"))])
        ) { context in
            await JSONBody.response(try state(for: context.authenticatedUser))
        }
        routes.add(
            "GET", "/api/assistant/settings",
            APIOperation(
                id: "assistantSettings", summary: "Your assistant settings.",
                answers: [.init(200, "Your settings.", ref("AssistantSettings"))])
        ) { context in
            await JSONBody.response(try settings(of: context.authenticatedUser))
        }
        routes.add(
            "PUT", "/api/assistant/settings",
            APIOperation(
                id: "setAssistantSettings",
                summary: "Change your assistant settings; a field left out stays as it is.",
                body: AssistantOpenAPI.settingsBody, answers: [.init(200, "Your settings.", ref("AssistantSettings"))])
        ) { context in
            let user = context.authenticatedUser
            let body = try JSONBody.decode(SettingsUpdate.self, from: context.request)
            if let stream = body.stream_responses {
                try await store.setPreference(Setting.stream.rawValue, to: String(stream), for: user)
            }
            if let show = body.show_token_counts {
                try await store.setPreference(Setting.showTokens.rawValue, to: String(show), for: user)
            }
            if let appearance = body.appearance {
                guard Self.appearances.contains(appearance) else {
                    throw APIError.badRequest("appearance must be one of: \(Self.appearances.joined(separator: ", "))")
                }
                try await store.setPreference(Setting.appearance.rawValue, to: appearance, for: user)
            }
            if let language = body.response_language {
                guard language.isEmpty || AssistantLanguage.named(language) != nil else {
                    throw APIError.badRequest(
                        "response_language must be empty or one of: \(AssistantLanguage.all.map(\.code).joined(separator: ", "))"
                    )
                }
                try await store.setPreference(
                    Setting.language.rawValue, to: language.isEmpty ? nil : language.lowercased(), for: user)
            }
            return await JSONBody.response(try settings(of: user))
        }
        routes.add(
            "GET", "/api/assistant/conversations",
            APIOperation(
                id: "assistantConversations", summary: "Your conversations, the most recently active first.",
                answers: [.init(200, "Your conversations.", ref("AssistantConversationList"))])
        ) { context in
            await JSONBody.response(
                ConversationList(conversations: try store.assistantConversations(for: context.authenticatedUser)))
        }
        routes.add(
            "POST", "/api/assistant/conversations",
            APIOperation(
                id: "createAssistantConversation",
                summary:
                    "Start a conversation with a persona (or custom instructions), a temperature and a response language (default: your setting).",
                body: AssistantOpenAPI.conversationBody, bodyRequired: false,
                answers: [.init(201, "The new conversation, opened.", ref("AssistantConversation"))])
        ) { context in
            let user = context.authenticatedUser
            let body = try JSONBody.decode(ConversationSettingsBody.self, from: context.request, emptyAs: .init())
            var language = body.language
            if language == nil { language = try await store.preference(Setting.language.rawValue, for: user) }
            let settings = try Self.settings(from: body, language: language, current: nil)
            let conversation = try await store.createAssistantConversation(
                for: user, title: body.title ?? Self.defaultTitle, settings: settings)
            return JSONBody.response(conversation, status: 201)
        }
        routes.add(
            "GET", "/api/assistant/search",
            APIOperation(
                id: "searchAssistant",
                summary:
                    "Search every message of your conversations; each hit names its conversation and the matched words (UTF-16 offsets).",
                query: [
                    .init("q", ##"{"type": "string", "minLength": 1, "maxLength": 200}"##),
                    .init("limit", ##"{"type": "integer", "minimum": 1, "maximum": 50}"##),
                ],
                answers: [.init(200, "The matches, best first.", ref("AssistantSearchResults"))])
        ) { context in
            guard let query = context.query["q"], query.count <= 200 else {
                throw APIError.badRequest("q: give 1 to 200 characters to search for")
            }
            var limit = 20
            if let text = context.query["limit"] {
                guard let value = Int(text), (1...50).contains(value) else {
                    throw APIError.badRequest("limit must be 1…50")
                }
                limit = value
            }
            let hits = try await store.searchAssistantMessages(query, for: context.authenticatedUser, limit: limit)
            return JSONBody.response(SearchResults(results: hits.map(SearchResultView.init)))
        }
        routes.add(
            "GET", "/api/assistant/conversations/{conversation_id}",
            APIOperation(
                id: "assistantConversation",
                summary:
                    "A conversation with its messages (answers as sanitized HTML), the context used of the session's window, and whether an answer is being written. Reading it makes it the one the assistant opens next.",
                answers: [.init(200, "The conversation.", ref("AssistantConversationDetail"))], errors: [404])
        ) { context in
            let user = context.authenticatedUser
            let id = try conversationID(context)
            try await store.markAssistantConversationOpened(id, for: user)
            return await JSONBody.response(try detail(id, for: user))
        }
        routes.add(
            "PATCH", "/api/assistant/conversations/{conversation_id}",
            APIOperation(
                id: "renameAssistantConversation", summary: "Rename a conversation.",
                body:
                    ##"{"type": "object", "required": ["title"], "properties": {"title": {"type": "string", "minLength": 1, "maxLength": 120, "pattern": "\\S"}}}"##,
                answers: [.init(200, "The conversation.", ref("AssistantConversation"))], errors: [404])
        ) { context in
            let id = try conversationID(context)
            let body = try JSONBody.decode(RenameBody.self, from: context.request)
            return await JSONBody.response(
                try store.renameAssistantConversation(id, to: body.title, for: context.authenticatedUser))
        }
        routes.add(
            "PUT", "/api/assistant/conversations/{conversation_id}/settings",
            APIOperation(
                id: "setAssistantConversationSettings",
                summary:
                    "Change a conversation's persona, instructions, temperature or response language. A change starts a new model session: a divider saying the model's memory was reset is stored and returned.",
                body: AssistantOpenAPI.conversationBody,
                answers: [
                    .init(200, "The conversation and the divider, if one was added.", ref("AssistantSettingsChange"))
                ],
                errors: [404, 409])
        ) { context in
            let user = context.authenticatedUser
            let id = try conversationID(context)
            let body = try JSONBody.decode(ConversationSettingsBody.self, from: context.request)
            let current = try await store.assistantConversation(id, for: user)
            guard !engine.isAnswering(id) else { throw Self.answering }
            let settings = try Self.settings(from: body, language: body.language ?? current.language, current: current)
            let (conversation, divider) = try await store.updateAssistantSettings(
                id, to: settings, dividerText: AssistantEngine.resetText, for: user)
            return JSONBody.response(
                SettingsChange(conversation: conversation, divider: divider.map(AssistantMessageView.init)))
        }
        routes.add(
            "DELETE", "/api/assistant/conversations/{conversation_id}",
            APIOperation(
                id: "deleteAssistantConversation",
                summary: "Delete a conversation with its messages and images (an answer being written is stopped).",
                answers: [.init(204, "Deleted.")], errors: [404])
        ) { context in
            let user = context.authenticatedUser
            let id = try conversationID(context)
            _ = try await store.assistantConversation(id, for: user)
            _ = await engine.stop(id, for: user)
            try await store.deleteAssistantConversation(id, for: user)
            engine.forget(id)
            return HTTPResponse(status: 204)
        }
        routes.add(
            "GET", "/api/assistant/conversations/{conversation_id}/export",
            APIOperation(
                id: "exportAssistantConversation",
                summary: "The whole conversation as a Markdown file to download.",
                answers: [.init(200, "The conversation as text/markdown.")], errors: [404])
        ) { context in
            let user = context.authenticatedUser
            let id = try conversationID(context)
            let conversation = try await store.assistantConversation(id, for: user)
            let messages = try await store.assistantMessages(in: id, for: user)
            return HTTPResponse.text(
                AssistantExport.markdown(conversation, messages), contentType: "text/markdown; charset=utf-8"
            )
            .adding("Content-Disposition", "attachment; filename=\"\(AssistantExport.filename(for: conversation))\"")
        }
        routes.add(
            "POST", "/api/assistant/conversations/{conversation_id}/messages",
            APIOperation(
                id: "sendAssistantMessage",
                summary:
                    "Send a message, with the images attached to the conversation that image_ids names (the model reads each as \"[Image context: …]\" before the text; with images the text may be empty, and the model is asked what they show); the answer is written at once, streamed as assistant.updated frames on /api/connect and stored when it ends. A message that would not fit the session's context window is refused (409 context_full) before any work.",
                body:
                    ##"{"type": "object", "required": ["text"], "properties": {"text": {"type": "string", "maxLength": 4000}, "stream": {"type": "boolean"}, "image_ids": {"type": "array", "maxItems": 4, "items": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}}}}"##,
                answers: [.init(202, "Your stored message and the answer being written.", ref("AssistantTurnStarted"))],
                errors: [404, 409])
        ) { context in
            let user = context.authenticatedUser
            let id = try conversationID(context)
            let body = try JSONBody.decode(SendBody.self, from: context.request)
            let text = body.text
            let imageIDs = body.image_ids ?? []
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || !imageIDs.isEmpty else {
                throw APIError.badRequest("text must not be empty (unless images are attached)")
            }
            guard text.count <= Self.maxMessageLength else {
                throw APIError.badRequest("text is longer than \(Self.maxMessageLength) characters")
            }
            let conversation = try await store.assistantConversation(id, for: user)
            let images = try await images(named: imageIDs, in: id, for: user)
            let model = try model.required()
            guard !engine.isAnswering(id) else { throw Self.answering }
            try engine.checkCapacity(for: user)
            let messages = try await store.assistantMessages(in: id, for: user)
            let (divider, history) = AssistantEngine.currentSession(of: messages)
            let session = await engine.session(
                for: conversation, divider: divider, history: history, model: model.model)
            let prompt = AssistantEngine.prompt(text, images: images)
            // Only the local model counts tokens (a fallback's endpoint refuses what overflows it).
            if let local = model.local { try await fits(prompt, in: session, model: local) }
            let stream: Bool
            if let requested = body.stream {
                stream = requested
            } else {
                stream = try await settings(of: user).stream_responses
            }
            let message = try await store.appendAssistantMessage(
                NewAssistantMessage(role: .user, text: text), to: id, for: user, attaching: imageIDs)
            let turn = try await engine.startAnswer(
                prompt, in: session, conversation: conversation, owner: user, stream: stream, modelName: model.name)
            return JSONBody.response(TurnStarted(message: AssistantMessageView(message), turn: turn), status: 202)
        }
        routes.add(
            "POST", "/api/assistant/conversations/{conversation_id}/regenerate",
            APIOperation(
                id: "regenerateAssistantAnswer",
                summary: "Write the last answer again: the stored one is replaced when the new one ends.",
                answers: [.init(202, "The answer being written.", ref("AssistantTurnStarted"))], errors: [404, 409])
        ) { context in
            let user = context.authenticatedUser
            let id = try conversationID(context)
            let conversation = try await store.assistantConversation(id, for: user)
            let model = try model.required()
            guard !engine.isAnswering(id) else { throw Self.answering }
            try engine.checkCapacity(for: user)
            var messages = try await store.assistantMessages(in: id, for: user)
            if messages.last?.role == .assistant, let last = messages.popLast() {
                try await store.deleteAssistantMessage(last.id, in: id, for: user)
            }
            guard let prompt = messages.popLast(), prompt.role == .user else {
                throw APIError(status: 409, code: "nothing_to_regenerate", message: "there is no answer to write again")
            }
            let (divider, history) = AssistantEngine.currentSession(of: messages)
            let session = await engine.session(
                for: conversation, divider: divider, history: history, model: model.model)
            var images: [AssistantImage] = []
            for image in prompt.images { images.append(try await store.assistantImage(image.id, in: id, for: user)) }
            let stream = try await settings(of: user).stream_responses
            let turn = try await engine.startAnswer(
                AssistantEngine.prompt(prompt.text, images: images), in: session, conversation: conversation,
                owner: user, stream: stream, modelName: model.name)
            return JSONBody.response(TurnStarted(message: nil, turn: turn), status: 202)
        }
        routes.add(
            "POST", "/api/assistant/conversations/{conversation_id}/stop",
            APIOperation(
                id: "stopAssistantAnswer",
                summary:
                    "Stop the answer being written: the model stops at once and what it wrote is kept as a finished message marked stopped.",
                answers: [
                    .init(200, "Whether an answer was stopped, and the conversation now.", ref("AssistantStopped"))
                ],
                errors: [404])
        ) { context in
            let user = context.authenticatedUser
            let id = try conversationID(context)
            _ = try await store.assistantConversation(id, for: user)
            let stopped = await engine.stop(id, for: user)
            return await JSONBody.response(Stopped(stopped: stopped, conversation: try detail(id, for: user)))
        }
        routes.add(
            "POST", "/api/assistant/conversations/{conversation_id}/continue",
            APIOperation(
                id: "continueAssistantInNewSession",
                summary:
                    "Continue in a new session: the model summarizes the conversation, and a new session starts from that summary (stored as a divider).",
                answers: [.init(202, "The summary being written.", ref("AssistantTurnStarted"))], errors: [404, 409])
        ) { context in
            let user = context.authenticatedUser
            let id = try conversationID(context)
            let conversation = try await store.assistantConversation(id, for: user)
            let model = try model.required()
            let messages = try await store.assistantMessages(in: id, for: user)
            let turn = try await engine.startContinuation(
                of: conversation, messages: messages, owner: user, model: model.model)
            return JSONBody.response(TurnStarted(message: nil, turn: turn), status: 202)
        }
        routes.add(
            "POST", "/api/assistant/conversations/{conversation_id}/summary",
            APIOperation(
                id: "summarizeAssistantConversation",
                summary:
                    "A 3-sentence summary of the conversation so far, streamed as assistant.updated frames (kind summary), from a fresh session; nothing is stored.",
                answers: [.init(202, "The summary being written.", ref("AssistantTurnStarted"))], errors: [404, 409])
        ) { context in
            let user = context.authenticatedUser
            let id = try conversationID(context)
            let conversation = try await store.assistantConversation(id, for: user)
            let model = try model.required()
            let messages = try await store.assistantMessages(in: id, for: user)
            guard messages.contains(where: { $0.role != .divider }) else {
                throw APIError(status: 409, code: "empty_conversation", message: "there is nothing to summarize yet")
            }
            let turn = try engine.startSummary(of: conversation, messages: messages, owner: user, model: model.model)
            return JSONBody.response(TurnStarted(message: nil, turn: turn), status: 202)
        }
        addImageRoutes(to: &routes)
        addImageGenerationRoutes(to: &routes)
    }

    // MARK: - Helpers

    package static let answering = APIError(
        status: 409, code: "answering", message: "this conversation is still answering; wait for it or stop it first")

    package func conversationID(_ context: RequestContext) throws -> String {
        try Self.checkedID(context.parameter("conversation_id"), field: "conversation_id")
    }

    /// Refuses a turn that would not fit, naming the numbers.
    private func fits(_ prompt: Prompt, in session: LanguageModelSession, model: SystemLanguageModel) async throws {
        do {
            try await engine.checkFits(prompt, in: session, model: model)
        } catch let full as AssistantEngine.ContextFull {
            let format = Self.grouped
            throw APIError(
                status: 409, code: "context_full",
                message:
                    "This conversation is too long for the model's memory: it holds \(format(full.used)) of \(format(full.size)) tokens, and this message with room for an answer needs \(format(full.needed)) more. Continue in a new session: the model starts again from a summary of this conversation."
            )
        }
    }

    /// `1234` as `1,234`.
    package static func grouped(_ number: Int) -> String {
        let digits = Array(String(number.magnitude))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return (number < 0 ? "-" : "") + text
    }

    package func state(for user: UserID) async throws -> AssistantState {
        await AssistantState(
            model: modelState(), personas: AssistantPersona.presets, languages: AssistantLanguage.all,
            settings: try settings(of: user),
            last_conversation_id: try store.lastOpenedAssistantConversation(for: user)?.id,
            context_size: model.model?.contextSize, model_loading: model.model?.isLoading ?? false,
            max_image_bytes: maxImageBytes)
    }

    package func settings(of user: UserID) async throws -> SettingsView {
        let stored = try await store.preferences(for: user)
        return SettingsView(
            stream_responses: stored[Setting.stream.rawValue] != "false",
            show_token_counts: stored[Setting.showTokens.rawValue] != "false",
            response_language: stored[Setting.language.rawValue] ?? "",
            appearance: stored[Setting.appearance.rawValue] ?? "system")
    }

    package func detail(_ id: String, for user: UserID) async throws -> ConversationDetail {
        let conversation = try await store.assistantConversation(id, for: user)
        let messages = try await store.assistantMessages(in: id, for: user)
        let context = try? await engine.context(of: conversation, for: user)
        return await ConversationDetail(
            conversation: conversation, messages: messages.map(AssistantMessageView.init), context: context,
            answering: engine.isAnswering(id), pending_images: try store.assistantUploads(in: id, for: user))
    }

    /// The settings a body asks for, over `current` (or the defaults for a new conversation).
    package static func settings(
        from body: ConversationSettingsBody, language: String?, current: AssistantConversation?
    )
        throws -> AssistantSettings
    {
        let personaID = body.persona ?? current?.persona ?? "general"
        guard AssistantPersona.ids.contains(personaID) else {
            throw APIError.badRequest("persona must be one of: \(AssistantPersona.ids.joined(separator: ", "))")
        }
        let instructions: String
        if personaID == AssistantPersona.customID {
            guard let custom = body.instructions ?? current?.instructions,
                !custom.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
            else { throw APIError.badRequest("instructions: a custom persona needs instructions") }
            instructions = custom
        } else if let custom = body.instructions, custom != AssistantPersona.preset(personaID)?.instructions {
            throw APIError.badRequest("instructions: set persona to 'custom' to give your own instructions")
        } else {
            instructions = AssistantPersona.preset(personaID)?.instructions ?? ""
        }
        let temperature = body.temperature ?? current?.temperature ?? 0.7
        guard (0...2).contains(temperature) else { throw APIError.badRequest("temperature must be between 0 and 2") }
        var code = language
        if let given = code {
            if given.isEmpty {
                code = nil
            } else {
                guard let known = AssistantLanguage.named(given) else {
                    throw APIError.badRequest(
                        "language must be empty or one of: \(AssistantLanguage.all.map(\.code).joined(separator: ", "))"
                    )
                }
                code = known.code
            }
        }
        return AssistantSettings(
            persona: personaID, instructions: instructions, temperature: temperature, language: code)
    }
}
