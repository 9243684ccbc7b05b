import ChatStore
import Foundation

/// The JSON API's routes, on top of the store, the event hub and the suggestion scheduler.
struct ChatAPI: Sendable {
    let store: ChatStore
    let hub: EventHub
    let scheduler: SuggestionScheduler

    var routes: RouteList {
        var routes = RouteList()
        routes.add("GET", "/api/health", authenticated: false) { _ in
            JSONBody.response(HealthResponse(suggestions: scheduler.isAvailable))
        }
        routes.add("GET", "/api/openapi.json", authenticated: false) { _ in
            HTTPResponse.json(bytes: Array(OpenAPIDocument.json.utf8))
        }
        routes.add("GET", "/api/me") { context in
            let user = try store.ensureUser(context.authenticatedUser)
            return JSONBody.response(MeResponse(user: user, suggestions: scheduler.isAvailable))
        }
        routes.add("POST", "/api/users") { context in
            let body = try JSONBody.decode(UpsertUsersRequest.self, from: context.request)
            let users = try store.upsertUsers(body.users, by: context.authenticatedUser)
            return JSONBody.response(UsersResponse(users: users))
        }
        routes.add("GET", "/api/channels") { context in
            JSONBody.response(ChannelsResponse(channels: try store.channels(for: context.authenticatedUser)))
        }
        routes.add("POST", "/api/channels") { context in
            let body = try JSONBody.decode(CreateChannelRequest.self, from: context.request)
            let cid = try ChannelID.parse(body.cid, field: "cid")
            let members = try (body.members ?? []).enumerated().map {
                try UserID.validated($0.element, field: "members[\($0.offset)]")
            }
            let (detail, created) = try store.getOrCreateChannel(
                cid, name: body.name, members: members, by: context.authenticatedUser)
            return JSONBody.response(
                ChannelResponse(channel: detail.channel, members: detail.members, created: created),
                status: created ? 201 : 200)
        }
        routes.add("GET", "/api/channels/{cid}") { context in
            let detail = try store.channelDetail(try cid(context), for: context.authenticatedUser)
            return JSONBody.response(ChannelResponse(channel: detail.channel, members: detail.members))
        }
        routes.add("GET", "/api/channels/{cid}/messages") { context in
            let query = context.request.query
            var limit = 50
            if let text = query["limit"] {
                guard let value = Int(text), (1...ChatStore.maxPageSize).contains(value) else {
                    throw APIError.badRequest("limit must be an integer from 1 to \(ChatStore.maxPageSize)")
                }
                limit = value
            }
            let before = try query["before"].map { try MessageID.validated($0, field: "before") }
            let page = try store.messages(
                in: try cid(context), for: context.authenticatedUser, before: before, limit: limit)
            return JSONBody.response(page)
        }
        routes.add("POST", "/api/channels/{cid}/messages") { context in
            let body = try JSONBody.decode(SendMessageRequest.self, from: context.request)
            let new = NewMessage(
                id: try body.id.map { try MessageID.validated($0, field: "id") }, cid: try cid(context),
                author: context.authenticatedUser, text: body.text,
                parentID: try body.parentID.map { try MessageID.validated($0, field: "parent_id") })
            let result = try store.sendMessage(new)
            if result.created {
                hub.notify(result.recipients)
                refreshSuggestions(after: result.message, members: result.recipients)
            }
            return JSONBody.response(
                MessageResponse(message: result.message, created: result.created), status: result.created ? 201 : 200)
        }
        routes.add("POST", "/api/channels/{cid}/read") { context in
            let body = try JSONBody.decode(MarkReadRequest.self, from: context.request, emptyAs: MarkReadRequest())
            let upTo = try body.messageID.map { try MessageID.validated($0, field: "message_id") }
            let result = try store.markRead(context.authenticatedUser, in: try cid(context), upTo: upTo)
            if result.changed { hub.notify(result.recipients) }
            return JSONBody.response(ReadResponse(read: result.read))
        }
        routes.add("POST", "/api/channels/{cid}/typing") { context in
            let body = try JSONBody.decode(TypingRequest.self, from: context.request)
            try typing(context.authenticatedUser, in: try cid(context), started: body.typing)
            return JSONBody.response(TypingResponse(typing: body.typing))
        }
        routes.add("GET", "/api/channels/{cid}/suggestions") { context in
            var tone: Tone?
            if let text = context.request.query["tone"] {
                guard let parsed = Tone(rawValue: text) else {
                    throw APIError.badRequest(
                        "tone must be one of: \(Tone.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                tone = parsed
            }
            let cid = try cid(context)
            let user = context.authenticatedUser
            let key = SuggestionScheduler.Key(user: user, cid: cid)
            scheduler.setPreferredTone(tone, for: key)
            let replyContext = try replyContext(for: user, in: cid, tone: tone)
            let snapshot = scheduler.submit(replyContext)
            return JSONBody.response(
                SuggestionsResponse(
                    cid: cid, status: snapshot.status, suggestions: snapshot.suggestions, signature: snapshot.signature)
            )
        }
        routes.add("GET", "/api/connect") { _ in
            throw APIError(status: 426, code: "upgrade_required", message: "connect with a WebSocket upgrade")
        }
        return routes
    }

    private func cid(_ context: RequestContext) throws -> ChannelID {
        try ChannelID.parse(context.parameter("cid"))
    }

    /// Records a typing event for the other members of the channel.
    func typing(_ user: UserID, in cid: ChannelID, started: Bool) throws {
        let members = try store.memberIDs(of: cid)
        guard members.contains(user) else {
            guard try store.channel(cid) != nil else { throw ChatStoreError.notFound(what: "channel", id: cid.cid) }
            throw ChatStoreError.notMember(user: user, channel: cid)
        }
        let others = members.filter { $0 != user }
        try store.recordEvent(
            type: started ? EventType.typingStart : EventType.typingStop, cid: cid,
            fields: TypingEventFields(user_id: user), to: others, ephemeral: true)
        hub.notify(others)
    }

    /// The conversation as `user` sees it, for the suggester.
    func replyContext(for user: UserID, in cid: ChannelID, tone: Tone?) throws -> ReplyContext {
        let detail = try store.channelDetail(cid, for: user)
        let total = try store.messageCount(in: cid)
        let recent = try store.recentMessages(in: cid, limit: ReplyContext.windowSize(messageCount: total))
        guard let me = detail.members.first(where: { $0.user.id == user })?.user else {
            throw ChatStoreError.notMember(user: user, channel: cid)
        }
        return ReplyContext(
            user: me, channel: detail.channel, participants: detail.members.map(\.user), recentMessages: recent,
            tone: tone)
    }

    /// After a new message: members who are connected, want suggestions and have asked for
    /// them in this channel get fresh ones (the author's are withdrawn: they spoke last).
    func refreshSuggestions(after message: Message, members: [UserID]) {
        guard scheduler.isAvailable else { return }
        for member in members where hub.wantsSuggestions(member) {
            let key = SuggestionScheduler.Key(user: member, cid: message.cid)
            guard scheduler.snapshot(for: key) != nil else { continue }
            if let context = try? replyContext(for: member, in: message.cid, tone: scheduler.preferredTone(for: key)) {
                scheduler.submit(context)
            }
        }
    }
}
