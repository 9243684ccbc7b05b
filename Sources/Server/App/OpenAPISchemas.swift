import AssistantServer
import ChatIntelligence
import ChatStore
import OpenAIServer
import ServerKit

/// The chat API's `components.schemas`: what the routes answer with, generated from the Swift
/// types by ``WireSchemas`` (each from an example value; a field's description, bounds or
/// nullability added by its key where the type cannot say them), beside the schemas that are
/// rules rather than types: identifiers and names with their patterns, times, and the request
/// body of `POST /api/users`.
enum OpenAPISchemas {
    static func all() throws -> [String: Any] {
        var schemas = WireSchemas()
        leaves(&schemas)
        schemas.inline(SuggestionSnapshot.Status.self)
        schemas.inline(JobSnapshot.Status.self)
        schemas.inline(ModelDownload.Status.self)
        answers(&schemas)
        try AssistantOpenAPI.register(&schemas)
        return try schemas.build()
    }

    private static func leaves(_ schemas: inout WireSchemas) {
        schemas.leaf(UserID.self, "UserID", ["type": "string", "pattern": "^[A-Za-z0-9_.@-]{1,64}$"])
        schemas.leaf(
            ChannelID.self, "ChannelID",
            [
                "type": "string", "pattern": "^[a-z0-9_-]{1,32}:[A-Za-z0-9_.@!-]{1,64}$",
                "example": "messaging:weekend-hike",
            ])
        schemas.leaf(MessageID.self, "MessageID", ["type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$"])
        schemas.leaf(Timestamp.self, "Time", ["type": "string", "format": "date-time"])
        // Not a type: the rule a display name is checked against (ChatStore's `validatedName`).
        let unsafe = #"\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069"#
        schemas.leaf(
            DisplayName.self, "Name",
            [
                "type": "string", "minLength": 1, "maxLength": 100,
                "description":
                    "A display name: some non-space text, no control or bidirectional-override characters; unique per server (case-insensitive) for users.",
                "pattern": "^[^\(unsafe)]*[^\\s\(unsafe)][^\(unsafe)]*$",
            ])
        // A request body: its `name` is a ``DisplayName`` rule, not the `String` the type holds.
        schemas.leaf(
            UserUpdate.self, "UserUpdate",
            [
                "type": "object", "required": ["id", "name"],
                "properties": ["id": WireSchemas.ref("UserID"), "name": WireSchemas.ref("Name")],
            ])
        // Written by `ChatAPI.send` around the stored message's JSON, which it does not decode.
        schemas.leaf(
            SentMessage.self, "SentMessage",
            [
                "type": "object", "required": ["message", "created"],
                "properties": [
                    "message": WireSchemas.ref("Message"),
                    "created": ["type": "boolean", "description": "False for a retry of a stored message."],
                ],
            ])
    }

    /// A display name, as a request body gives it (the rule, named; see ``leaves(_:)``).
    private enum DisplayName {}
    /// `POST /api/channels/{cid}/messages`'s answer (see ``leaves(_:)``).
    private enum SentMessage {}

    private static func answers(_ schemas: inout WireSchemas) {
        let time = Timestamp(milliseconds: 1_764_000_000_000)
        let user = User(id: "ada", name: "Ada", createdAt: time, updatedAt: time)
        let channel = Channel(
            cid: ChannelID(type: "messaging", id: "hike"), name: "Hike", createdBy: user.id, createdAt: time,
            lastMessageAt: time)
        let message = Message(
            id: "m1", cid: channel.cid, author: user.id, text: "Saturday?", createdAt: time, parentID: "m0")
        let read = ReadState(user: user.id, lastReadMessageID: message.id, lastReadAt: time)
        let member = Member(user: user, joinedAt: time, read: read)

        schemas.add("Error", example: APIError.Body(status: 404, code: "not_found", message: "no such channel"))
        schemas.add("Health", example: HealthResponse(suggestions: true))
        schemas.add("User", example: user)
        let images = ImageGenerationState(
            ImageGeneration(model: "flux", sizes: ["512x512"]) { _, _ in ([], "image/png") })
        var model = ModelState(.none)
        model.name = "qwen2.5-coder-1.5b"
        model.reason = "not_downloaded"
        schemas.add(
            "Me",
            example: MeResponse(
                user: user, suggestions: true, model: model,
                speech: SpeechState(available: true, model: "whisper-base", message: ""),
                images: images))
        schemas.add(
            "Session",
            example: SessionResponse(user: user, csrf_token: "c2Vzc2lvbg", expires_at: 1_764_604_800, admin: false),
            notes: [
                "csrf_token": [
                    "description":
                        "Send it in X-CSRF-Token with every request but GET while signed in with the cookie; keep it in memory only."
                ],
                "expires_at": [
                    "nullable": true, "description": "When the session ends unless refreshed, seconds since 1970.",
                ],
                "admin": ["description": "Whether this user may invite people and reset passwords."],
            ])
        schemas.add(
            "AccountLink",
            example: LinkResponse(user: user.id, name: "Ada", kind: "invite", expires_at: time),
            notes: [
                "kind": ["enum": ["setup", "invite", "reset"]], "name": ["description": "The user's display name."],
            ])
        schemas.add(
            "Invite",
            example: InviteResponse(user: user.id, kind: "invite", path: "/#join=SECRET", expires_at: time),
            notes: [
                "kind": ["enum": ["invite", "reset"]],
                "path": [
                    "description":
                        "The link on this server: give it to the person; the secret after #join= is shown this once."
                ],
            ])
        schemas.add(
            "ImageGenerationState", example: images,
            notes: [
                "available": [
                    "description":
                        "Whether POST /api/assistant/conversations/{conversation_id}/images/generations has an image model (configured with sotto serve --image-url; off by default)."
                ],
                "model": ["description": "The image model's name, shown beside the images it made."],
                "sizes": ["description": "The sizes a request may ask for."],
            ])
        schemas.add(
            "SpeechState", example: SpeechState(available: true, model: "whisper-base", message: ""),
            notes: [
                "available": [
                    "description":
                        "Whether POST /v1/audio/transcriptions has a speech model (loaded at its first request)."
                ],
                "model": ["nullable": true, "description": "The speech model's id."],
                "message": ["description": "Why there is none and what to do; empty when there is one."],
            ])
        schemas.add(
            "ModelState", example: model,
            notes: [
                "available": [
                    "description":
                        "Whether the AI features work: the local model is there, or the fallback stands in for it."
                ],
                "name": ["description": "The model the features use; a fallback's is 'model at URL'."],
                "fallback": [
                    "description":
                        "True when the features run on the configured fallback (an OpenAI-compatible endpoint) because the local model is unavailable: what is written is sent there."
                ],
                "pool": [
                    "description":
                        "True when the features run on the local model and a pool of inference servers beside it (sotto serve --pool-urls), each request where there is most room: what is written may be sent to those servers."
                ],
                "reason": ["enum": ["not_downloaded", "machine_too_small", "turned_off", "no_model"]],
                "message": [
                    "description": "Why the local model is unavailable and what to do; empty when it is there."
                ],
            ])
        schemas.add(
            "ModelDownload",
            example: ModelDownload.Progress(
                model: "qwen2.5-coder-1.5b", status: .downloading, fraction: 0.5, bytes: 1_000, message: "Downloading"),
            notes: [
                "model": ["description": "The catalog id."],
                "fraction": [
                    "minimum": 0, "maximum": 1, "nullable": true,
                    "description": "Of the whole; null while pip fetches a part.",
                ],
                "bytes": ["description": "The model file's size."],
                "message": ["description": "What is happening, or why it stopped."],
            ])
        schemas.add(
            "Preferences", example: PreferencesResponse(translation_language: "fr"),
            notes: ["translation_language": ["nullable": true]])
        let event = JobResult.EventFields(
            title: "Hike", start: time, end: time, all_day: false, location: "Ridge", time_zone: "Europe/Paris")
        let result = JobResult(
            model: "qwen", text: "Bonjour", language: "fr", terms: ["hike"], event: event, ics: "BEGIN:VCALENDAR",
            filename: "hike.ics")
        schemas.add(
            "Job", example: JobSnapshot(id: "j1", kind: "translation", status: .done, result: result, error: "none"),
            notes: [
                "kind": ["description": "writing.<tool>, translation, summary, event or search_suggestions."],
                "result.model": [
                    "description":
                        "The model that produced the result: the local model's name, or the fallback's 'model at URL'."
                ],
                "result.ics": ["description": "The event as an iCalendar (RFC 5545) file."],
            ])
        schemas.add("JobEnvelope", example: JobResponse(job: JobSnapshot(id: "j1", kind: "summary", status: .queued)))
        schemas.add(
            "SearchResults",
            example: SearchResponse(
                query: "hike",
                results: [SearchHit(message: message, channelName: "Hike", score: 3, highlights: [[0, 4]])]),
            notes: [
                "results[].highlights": [
                    "description": "Matched words as [start, end) UTF-16 offsets in the text."
                ],
                "results[].highlights[]": ["minItems": 2, "maxItems": 2],
            ])
        schemas.add(
            "Channel", example: channel,
            notes: [
                "public": [
                    "description": "Listed to everyone, who may join; a private channel is for its members alone."
                ],
                "topic": ["description": "What the channel is about; empty when nothing is said."],
            ])
        schemas.add("ReadState", example: read)
        schemas.add("Member", example: member)
        schemas.add(
            "ChannelDetail", example: ChannelResponse(channel: channel, members: [member], created: true))
        schemas.add(
            "ChannelSummary",
            example: ChannelSummary(
                channel: channel, members: [user], unreadCount: 1, unreadMentions: 1, unreadThreads: 1,
                lastMessage: message),
            notes: [
                "unread_count": ["minimum": 0, "description": "Unread top-level messages from others."],
                "unread_mentions": [
                    "minimum": 0,
                    "description":
                        "Unread messages that mention you (@your-id), replies in the threads you follow included.",
                ],
                "unread_threads": [
                    "minimum": 0, "description": "Threads you follow with replies you have not read.",
                ],
            ])
        var changed = message
        changed.editedAt = time
        changed.deletedAt = time
        changed.reactions = [Reaction(emoji: "👍", users: [user.id])]
        changed.replyCount = 2
        changed.lastReplyAt = time
        let file = AttachmentInfo(
            id: "5f0c…", name: "map.png", mimeType: "image/png", size: 48_213, width: 640, height: 480, thumbnail: true)
        changed.attachments = [file]
        schemas.add(
            "Message", example: changed,
            notes: [
                "edited_at": ["description": "When its author last edited it; absent if never."],
                "deleted_at": ["description": "When it was deleted (its text is then empty); absent if not."],
                "reactions": ["description": "Each emoji given, in the order first given; absent for none."],
                "parent_id": ["description": "The thread's first message, for a reply; absent otherwise."],
                "reply_count": [
                    "minimum": 1,
                    "description": "For a thread's first message: its replies, deleted ones included; absent for none.",
                ],
                "last_reply_at": ["description": "When the newest reply came; absent for no replies."],
                "attachments": ["description": "The files it carries; absent for none."],
            ])
        var listed = channel
        listed.isPublic = true
        listed.topic = "Trips and gear"
        schemas.add(
            "ChannelListing", example: ChannelListing(channel: listed, memberCount: 3, joined: false),
            notes: ["joined": ["description": "Whether you are a member."]])
        schemas.add("Reaction", example: Reaction(emoji: "👍", users: [user.id]))
        schemas.add(
            "AttachmentInfo", example: file,
            notes: [
                "mime_type": ["description": "What its bytes are (sniffed); application/octet-stream when not known."],
                "width": ["description": "An image's width in pixels, when it could be read; absent otherwise."],
                "height": ["description": "An image's height in pixels, when it could be read; absent otherwise."],
                "thumbnail": ["description": "Whether GET /api/attachments/{id}/thumbnail has a small version."],
            ])
        schemas.add("MessageEdit", example: MessageEdit(text: "Saturday?", editedAt: time))
        schemas.add(
            "MessagePage",
            example: MessagePage(
                messages: [message], hasMore: false, unreadReplies: [ThreadUnread(parentID: message.id, count: 1)]),
            notes: [
                "messages": [
                    "description":
                        "A channel's top-level messages (replies are in their threads, GET /api/messages/{id}/thread)."
                ],
                "unread_replies": [
                    "description":
                        "Threads on this page you follow (started, replied to, mentioned in, opened) with replies you have not read; absent when none."
                ],
            ])
        schemas.add(
            "ThreadPage",
            example: ThreadPage(parent: message, messages: [message], hasMore: false, unread: 1, following: true),
            notes: [
                "unread": ["minimum": 0, "description": "Replies from others after your read position in the thread."],
                "following": [
                    "description":
                        "Whether you follow it: started it, replied, were mentioned in it, or marked it read."
                ],
            ])
        schemas.add(
            "Suggestions",
            example: SuggestionsResponse(
                cid: channel.cid, status: .ready, suggestions: ["Yes!"], signature: "s", model: "qwen",
                parent_id: "m0"),
            notes: [
                "model": [
                    "description":
                        "The model that writes the suggestions (a remote one: 'NAME at URL'); absent when none does."
                ],
                "suggestions": ["maxItems": 3],
                "parent_id": ["description": "The thread they are for; absent for the channel's."],
            ])
        schemas.add("Token", example: TokenResponse(token: "eyJ…", expires_at: 1_764_000_000))
    }
}
