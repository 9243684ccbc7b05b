import AssistantServer
import ChatStore
import Foundation
import HTTPCore
import OpenAIServer
import ServerKit
import Synchronization

/// The JSON API's routes, on top of the store, the event hub and the suggestion scheduler.
struct ChatAPI: Sendable {
    let store: ChatStore
    let hub: EventHub
    let scheduler: SuggestionScheduler
    /// The OpenAPI document, filled in once the routes exist (it is generated from them).
    let document: DocumentHolder

    let tokens: TokenAuthority
    /// The model behind the AI features, as `/api/me` reports it.
    let modelState: ModelState
    /// Whether speech to text is there, as `/api/me` reports it (the composers' microphone).
    let speechState: SpeechState
    /// Whether images can be made on request, as `/api/me` reports it.
    let imagesState: ImageGenerationState
    /// Longest a session may be stretched by refreshing its token.
    static let maxSessionSeconds: Int64 = 30 * 86_400

    var routes: RouteList {
        var routes = RouteList()
        let ref = APIOperation.ref
        let messageIDSchema = ##"{"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$", "nullable": true}"##
        routes.add(
            "GET", "/api/health", authenticated: false,
            APIOperation(
                id: "health", summary: "Liveness and whether reply suggestions are available.",
                answers: [.init(200, "Up.", ref("Health"))])
        ) { _ in
            JSONBody.response(HealthResponse(suggestions: scheduler.isAvailable))
        }
        routes.add(
            "GET", "/api/openapi.json", authenticated: false,
            APIOperation(
                id: "openapi", summary: "This document.",
                answers: [.init(200, "The OpenAPI document.", ##"{"type": "object"}"##)])
        ) { [document] _ in
            HTTPResponse.json(bytes: document.bytes)
        }
        routes.add(
            "GET", "/api/me",
            APIOperation(
                id: "me", summary: "The token's user (created with their id as name on first use).",
                answers: [.init(200, "The user.", ref("Me"))])
        ) { context in
            let user = try await store.ensureUser(context.authenticatedUser)
            return JSONBody.response(
                MeResponse(
                    user: user, suggestions: scheduler.isAvailable, model: modelState, speech: speechState,
                    images: imagesState))
        }
        routes.add(
            "POST", "/api/token",
            APIOperation(
                id: "refreshToken",
                summary:
                    "A fresh token for the same user, with the same lifetime as this one (for tokens that expire; a session can be refreshed for up to 30 days from sign-in).",
                answers: [.init(200, "The new token.", ref("Token"))], errors: [403])
        ) { context in
            guard let claims = context.claims, claims.expiresAt != nil else {
                throw ChatStoreError.forbidden(reason: "this token never expires: there is nothing to refresh")
            }
            guard let token = tokens.refreshed(claims, maxSession: Self.maxSessionSeconds) else {
                throw ChatStoreError.forbidden(reason: "the session is over 30 days old: sign in again")
            }
            let refreshed = try tokens.verify(token)
            return JSONBody.response(TokenResponse(token: token, expires_at: refreshed.expiresAt))
        }
        routes.add(
            "POST", "/api/users",
            APIOperation(
                id: "upsertUsers",
                summary:
                    "Rename yourself; with an admin token, also create or rename other users. Display names are unique (case-insensitive).",
                body: ##"""
                    {"type": "object", "required": ["users"],
                     "properties": {"users": {"type": "array", "minItems": 1, "maxItems": 100, "items": {"$ref": "#/components/schemas/UserUpdate"}}}}
                    """##,
                answers: [
                    .init(
                        200, "The stored users.",
                        ##"{"type": "object", "required": ["users"], "properties": {"users": {"type": "array", "items": {"$ref": "#/components/schemas/User"}}}}"##
                    )
                ], errors: [403, 409])
        ) { context in
            let body = try JSONBody.decode(UpsertUsersRequest.self, from: context.request)
            let claims = context.claims!
            let users = try await store.upsertUsers(body.users, by: claims.isAdmin ? nil : claims.user)
            return JSONBody.response(UsersResponse(users: users))
        }
        routes.add(
            "GET", "/api/channels",
            APIOperation(
                id: "listChannels", summary: "Your channels, most recently active first, with unread counts.",
                answers: [
                    .init(
                        200, "Channels.",
                        ##"{"type": "object", "required": ["channels"], "properties": {"channels": {"type": "array", "items": {"$ref": "#/components/schemas/ChannelSummary"}}}}"##
                    )
                ])
        ) { context in
            await JSONBody.response(ChannelsResponse(channels: try store.channels(for: context.authenticatedUser)))
        }
        routes.add(
            "POST", "/api/channels",
            APIOperation(
                id: "getOrCreateChannel",
                summary:
                    "Get a channel, or create it with you and the given members. With a cid: a channel of that id; a channel you are not in is not found (404, as a missing one), and one whose members are not exactly you and those given is a 409. Without a cid: the channel of exactly you and the given members (its id, type:!members-…, is made from them), created once.",
                body: ##"""
                    {"type": "object", "properties": {
                      "cid": {"$ref": "#/components/schemas/ChannelID"},
                      "type": {"type": "string", "pattern": "^[a-z0-9_-]{1,32}$"},
                      "name": {"allOf": [{"$ref": "#/components/schemas/Name"}], "nullable": true},
                      "members": {"type": "array", "maxItems": 100, "items": {"$ref": "#/components/schemas/UserID"}, "nullable": true}}}
                    """##,
                answers: [
                    .init(200, "The existing channel.", ref("ChannelDetail")),
                    .init(201, "The new channel.", ref("ChannelDetail")),
                ], errors: [404, 409])
        ) { context in
            let body = try JSONBody.decode(CreateChannelRequest.self, from: context.request)
            let members = try (body.members ?? []).enumerated().map {
                try UserID.validated($0.element, field: "members[\($0.offset)]")
            }
            let (detail, created): (ChannelDetail, Bool)
            if let text = body.cid {
                guard body.type == nil else {
                    throw APIError.badRequest("give either cid or type (a channel of its members), not both")
                }
                (detail, created) = try await store.getOrCreateChannel(
                    try ChannelID.parse(text, field: "cid"), name: body.name, members: members,
                    by: context.authenticatedUser)
            } else {
                let type = body.type ?? "messaging"
                // The type is checked as a channel id's type is.
                _ = try ChannelID.parse(type + ":x", field: "type")
                (detail, created) = try await store.getOrCreateDistinctChannel(
                    type: type, name: body.name, members: members, by: context.authenticatedUser)
            }
            return JSONBody.response(
                ChannelResponse(channel: detail.channel, members: detail.members, created: created),
                status: created ? 201 : 200)
        }
        routes.add(
            "POST", "/api/channels/{cid}/leave",
            APIOperation(
                id: "leaveChannel",
                summary:
                    "Leave a channel: its messages and events are no longer yours; the members get a member.left event.",
                answers: [.init(204, "Left.")], errors: [404])
        ) { context in
            try await store.leaveChannel(try cid(context), user: context.authenticatedUser)
            return HTTPResponse(status: 204)
        }
        routes.add(
            "GET", "/api/channels/{cid}",
            APIOperation(
                id: "getChannel", summary: "A channel with its members and their read state.",
                answers: [.init(200, "The channel.", ref("ChannelDetail"))], errors: [404])
        ) { context in
            let detail = try await store.channelDetail(try cid(context), for: context.authenticatedUser)
            return JSONBody.response(ChannelResponse(channel: detail.channel, members: detail.members))
        }
        routes.add(
            "GET", "/api/channels/{cid}/messages",
            APIOperation(
                id: "listMessages",
                summary: "A page of history, oldest first, ending just before 'before' (default: the newest message).",
                query: [
                    .init("before", ref("MessageID")),
                    .init("limit", ##"{"type": "integer", "minimum": 1, "maximum": 200, "default": 50}"##),
                ],
                answers: [.init(200, "Messages.", ref("MessagePage"))], errors: [404])
        ) { context in
            let (before, limit) = try context.pageQuery(defaultLimit: 50)
            let page = try await store.messages(
                in: try cid(context), for: context.authenticatedUser, before: before, limit: limit)
            return JSONBody.response(page)
        }
        routes.add(
            "POST", "/api/channels/{cid}/messages",
            APIOperation(
                id: "sendMessage",
                summary:
                    "Send a message (at most 4000 characters and 16 KB of UTF-8). A retry with the same client-chosen id returns the stored message (200) instead of a duplicate.",
                body: ##"""
                    {"type": "object", "required": ["text"], "properties": {
                      "id": \##(messageIDSchema),
                      "text": {"type": "string", "minLength": 1, "maxLength": 4000, "pattern": "\\S"},
                      "parent_id": \##(messageIDSchema),
                      "attachment_ids": {"type": "array", "maxItems": 10, "uniqueItems": true,
                        "items": {"type": "string", "maxLength": 64}}}}
                    """##,
                answers: [
                    .init(200, "Already stored (idempotent retry).", ref("SentMessage")),
                    .init(201, "Stored.", ref("SentMessage")),
                ], errors: [404, 409])
        ) { context in
            let body = try JSONBody.decode(SendMessageRequest.self, from: context.request)
            let new = NewMessage(
                id: try body.id.map { try MessageID.validated($0, field: "id") }, cid: try cid(context),
                author: context.authenticatedUser, text: body.text,
                parentID: try body.parentID.map { try MessageID.validated($0, field: "parent_id") },
                attachmentIDs: body.attachmentIDs ?? [])
            let result = try await store.sendMessage(new)
            if result.created {
                await refreshSuggestions(after: result.message, members: result.recipients)
            }
            // `{"created", "message"}` (false for a retry of a stored message), written around the
            // message the store encoded once.
            return HTTPResponse.json(
                bytes: Array(#"{"created":\#(result.created),"message":\#(result.messageJSON)}"#.utf8),
                status: result.created ? 201 : 200)
        }
        routes.add(
            "POST", "/api/channels/{cid}/read",
            APIOperation(
                id: "markRead",
                summary: "Mark the channel read up to a message (default: the newest). Never moves backwards.",
                body: ##"{"type": "object", "properties": {"message_id": \##(messageIDSchema)}}"##, bodyRequired: false,
                answers: [
                    .init(
                        200, "Your read state.",
                        ##"{"type": "object", "required": ["read"], "properties": {"read": {"$ref": "#/components/schemas/ReadState"}}}"##
                    )
                ], errors: [404])
        ) { context in
            let body = try JSONBody.decode(MarkReadRequest.self, from: context.request, emptyAs: MarkReadRequest())
            let upTo = try body.messageID.map { try MessageID.validated($0, field: "message_id") }
            let result = try await store.markRead(context.authenticatedUser, in: try cid(context), upTo: upTo)
            return JSONBody.response(ReadResponse(read: result.read))
        }
        let typingSchema =
            ##"{"type": "object", "required": ["typing"], "properties": {"typing": {"type": "boolean"}}}"##
        routes.add(
            "POST", "/api/channels/{cid}/typing",
            APIOperation(
                id: "typing",
                summary: "Tell the other members you started or stopped typing (typing.start / typing.stop events).",
                body: typingSchema, answers: [.init(200, "Sent.", typingSchema)], errors: [404])
        ) { context in
            let body = try JSONBody.decode(TypingRequest.self, from: context.request)
            try await typing(context.authenticatedUser, in: try cid(context), started: body.typing)
            return JSONBody.response(TypingResponse(typing: body.typing))
        }
        routes.add(
            "GET", "/api/channels/{cid}/suggestions",
            APIOperation(
                id: "suggestions",
                summary:
                    "Reply suggestions for you in this channel, or in one of its threads ('thread': its first message's id). 'pending' means a suggestions.updated event will follow on /api/connect.",
                query: [
                    .init("tone", ##"{"type": "string", "enum": ["casual", "formal"]}"##),
                    .init("thread", ref("MessageID")),
                ],
                answers: [.init(200, "Where your suggestions stand.", ref("Suggestions"))], errors: [404])
        ) { context in
            var tone: Tone?
            if let text = context.query["tone"] {
                guard let parsed = Tone(rawValue: text) else {
                    throw APIError.badRequest(
                        "tone must be one of: \(Tone.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                tone = parsed
            }
            let cid = try cid(context)
            let user = context.authenticatedUser
            let thread = try context.query["thread"].map { try MessageID.validated($0, field: "thread") }
            // The membership check comes first: nothing is kept for a channel the user is not in.
            let replyContext = try await replyContext(for: user, in: cid, tone: tone, thread: thread)
            let key = SuggestionScheduler.Key(user: user, cid: cid, thread: replyContext.thread)
            scheduler.setPreferredTone(tone, for: key)
            let snapshot = await scheduler.submit(replyContext)
            return JSONBody.response(
                SuggestionsResponse(
                    cid: cid, status: snapshot.status, suggestions: snapshot.suggestions, signature: snapshot.signature,
                    model: scheduler.modelName, parent_id: replyContext.thread)
            )
        }
        routes.add(
            "GET", "/api/connect", authenticated: false,
            APIOperation(
                id: "connect",
                summary:
                    "WebSocket of your events. Query: token (or send {\"type\":\"auth\",\"token\"} within 5 s), since (last seq seen; missed events are replayed, or {\"type\":\"resync\"} is sent when they are gone), suggestions=off. Every event carries the server log's 'seq', the same for all its recipients: a user's seqs rise, with gaps. Types: message.new (a reply carries parent_id), message.read, message.updated, message.deleted, thread.read (yours, for your other tabs), member.added, member.left, channel.updated, typing.start, typing.stop, suggestions.updated (parent_id for a thread's chips); control frames hello, resync, pong, error. The socket is closed with 4401 when its token expires (reconnect with a fresh token and since). A plain GET without an upgrade gets 426.",
                query: [
                    .init("token", ##"{"type": "string"}"##),
                    .init("since", ##"{"type": "integer", "minimum": 0}"##),
                    .init("suggestions", ##"{"type": "string", "enum": ["on", "off"]}"##),
                ],
                answers: [
                    .init(101, "Switching to the WebSocket protocol."),
                    .init(426, "Not a WebSocket upgrade.", ref("Error")),
                ], errors: [403], publicAtHTTPLevel: true)
        ) { _ in
            throw APIError(status: 426, code: "upgrade_required", message: "connect with a WebSocket upgrade")
        }
        return routes
    }

    private func cid(_ context: RequestContext) throws -> ChannelID {
        try ChannelID.parse(context.parameter("cid"))
    }

    /// Records a typing event for the other members of the channel.
    func typing(_ user: UserID, in cid: ChannelID, started: Bool) async throws {
        guard try await store.isMember(user, of: cid) else {
            throw ChatStoreError.notFound(what: "channel", id: cid.cid)
        }
        try await store.recordEvent(
            type: started ? EventType.typingStart : EventType.typingStop, fields: TypingEventFields(user_id: user),
            to: .channel(cid, except: user), ephemeral: true)
    }

    /// The conversation as `user` sees it, for the suggester: the channel's top-level
    /// messages, or a thread's first message and its replies.
    func replyContext(for user: UserID, in cid: ChannelID, tone: Tone?, thread: MessageID? = nil) async throws
        -> ReplyContext
    {
        let detail = try await store.channelDetail(cid, for: user)
        guard let me = detail.members.first(where: { $0.user.id == user })?.user else {
            throw ChatStoreError.notMember(user: user, channel: cid)
        }
        let recent: [Message]
        var root: MessageID?
        if let thread {
            let parent = try await store.threadRoot(of: thread, for: user)
            guard parent.cid == cid else { throw ChatStoreError.notFound(what: "message", id: thread.rawValue) }
            root = parent.id
            let window = ReplyContext.windowSize(messageCount: (parent.replyCount ?? 0) + 1)
            recent = try await store.recentThreadMessages(of: parent.id, limit: window)
        } else {
            let total = try await store.messageCount(in: cid)
            recent = try await store.recentMessages(in: cid, limit: ReplyContext.windowSize(messageCount: total))
        }
        return ReplyContext(
            user: me, channel: detail.channel, participants: detail.members.map(\.user), recentMessages: recent,
            tone: tone, thread: root)
    }

    /// After a new message, an edit or a deletion: members who are connected, want suggestions
    /// and have asked for them in this conversation (the channel, or the message's thread) get
    /// fresh ones (after a new message, the author's are withdrawn: they spoke last). A thread's
    /// first message is read in the channel and in its thread: both are redrafted.
    func refreshSuggestions(after message: Message, members: [UserID]) async {
        guard scheduler.isAvailable else { return }
        let threads: [MessageID?] = message.replyCount != nil ? [nil, message.id] : [message.parentID]
        for member in members where hub.wantsSuggestions(member) {
            for thread in threads {
                let key = SuggestionScheduler.Key(user: member, cid: message.cid, thread: thread)
                guard scheduler.snapshot(for: key) != nil else { continue }
                if let context = try? await replyContext(
                    for: member, in: message.cid, tone: scheduler.preferredTone(for: key), thread: thread)
                {
                    await scheduler.submit(context)
                }
            }
        }
    }
}

/// The OpenAPI document of the server's routes, given once they are built and generated on the
/// first request for it: generating it is tens of milliseconds of JSON that a server (or each of
/// a test run's hundred servers) should not spend at start.
final class DocumentHolder: Sendable {
    private let state = Mutex<(routes: [Route], bytes: [UInt8]?)>(([], nil))

    /// Sets the routes the document describes (before the server starts).
    func describe(_ routes: [Route]) {
        state.withLock { $0 = (routes, nil) }
    }

    /// The document, generated on first use.
    var bytes: [UInt8] {
        state.withLock { state in
            if let bytes = state.bytes { return bytes }
            let bytes = Array(OpenAPIDocument.json(for: state.routes).utf8)
            state.bytes = bytes
            return bytes
        }
    }
}
