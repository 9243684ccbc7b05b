import ChatStore
import Foundation
import HTTPCore
import ServerKit

/// Channels people make from the app: `/api/team-channels` (create; list the public ones),
/// joining a public channel, adding and removing members, renaming and setting the topic. Every
/// route answers 404 for a channel the caller may not see, as for one that does not exist.
struct TeamChannelsAPI: Sendable {
    let store: ChatStore

    func add(to routes: inout RouteList) {
        let ref = APIOperation.ref
        routes.add(
            "POST", "/api/team-channels",
            APIOperation(
                id: "createTeamChannel",
                summary:
                    "Make a channel: public (listed to everyone, who may join) or private (its members add members), with a name, a topic and first members.",
                body: ##"""
                    {"type": "object", "required": ["name"], "properties": {
                      "name": {"$ref": "#/components/schemas/Name"},
                      "topic": {"type": "string", "maxLength": 250},
                      "public": {"type": "boolean"},
                      "members": {"type": "array", "maxItems": 99, "items": {"$ref": "#/components/schemas/UserID"}}}}
                    """##,
                answers: [.init(201, "The channel.", ref("ChannelDetail"))], errors: [404, 409])
        ) { context in
            let body = try JSONBody.decode(CreateTeamChannelRequest.self, from: context.request)
            let members = try (body.members ?? []).map { try UserID.validated($0, field: "members") }
            let detail = try await store.createChannel(
                name: body.name, topic: body.topic ?? "", isPublic: body.public ?? false, members: members,
                by: context.authenticatedUser)
            return JSONBody.response(ChannelResponse(channel: detail.channel, members: detail.members), status: 201)
        }
        routes.add(
            "GET", "/api/team-channels",
            APIOperation(
                id: "publicChannels",
                summary: "The public channels, by name, with their member counts and whether you are in each.",
                answers: [
                    .init(
                        200, "The public channels.",
                        ##"{"type": "object", "required": ["channels"], "properties": {"channels": {"type": "array", "items": {"$ref": "#/components/schemas/ChannelListing"}}}}"##
                    )
                ])
        ) { context in
            JSONBody.response(
                PublicChannelsResponse(channels: try await store.publicChannels(for: context.authenticatedUser)))
        }
        routes.add(
            "POST", "/api/channels/{cid}/join",
            APIOperation(
                id: "joinChannel", summary: "Join a public channel; its members get a member.added event.",
                answers: [.init(200, "The channel.", ref("ChannelDetail"))], errors: [404])
        ) { context in
            let detail = try await store.joinChannel(try Self.cid(context), user: context.authenticatedUser)
            return JSONBody.response(ChannelResponse(channel: detail.channel, members: detail.members))
        }
        routes.add(
            "POST", "/api/channels/{cid}/members",
            APIOperation(
                id: "addMembers",
                summary:
                    "Add people to a channel you are in (administrators: any channel). Not for direct messages, whose members are fixed.",
                body:
                    ##"{"type": "object", "required": ["members"], "properties": {"members": {"type": "array", "minItems": 1, "maxItems": 99, "items": {"$ref": "#/components/schemas/UserID"}}}}"##,
                answers: [.init(200, "The channel.", ref("ChannelDetail"))], errors: [404])
        ) { context in
            let body = try JSONBody.decode(AddMembersRequest.self, from: context.request)
            let members = try body.members.map { try UserID.validated($0, field: "members") }
            let detail = try await store.addMembers(
                members, to: try Self.cid(context), by: context.authenticatedUser,
                asAdministrator: try await Self.isAdmin(context, store))
            return JSONBody.response(ChannelResponse(channel: detail.channel, members: detail.members))
        }
        routes.add(
            "DELETE", "/api/channels/{cid}/members/{user_id}",
            APIOperation(
                id: "removeMember",
                summary:
                    "Take someone out of a channel: yourself (leaving), or anyone as its creator or an administrator.",
                answers: [.init(204, "Removed.")], errors: [403, 404])
        ) { context in
            let user = try UserID.validated(context.parameter("user_id"))
            try await store.removeMember(
                user, from: try Self.cid(context), by: context.authenticatedUser,
                asAdministrator: try await Self.isAdmin(context, store))
            return HTTPResponse(status: 204)
        }
        routes.add(
            "PATCH", "/api/channels/{cid}",
            APIOperation(
                id: "updateChannel",
                summary: "Rename a channel you are in, or set its topic; its members get channel.updated.",
                body:
                    ##"{"type": "object", "properties": {"name": {"$ref": "#/components/schemas/Name"}, "topic": {"type": "string", "maxLength": 250}}}"##,
                answers: [
                    .init(
                        200, "The channel.",
                        ##"{"type": "object", "required": ["channel"], "properties": {"channel": {"$ref": "#/components/schemas/Channel"}}}"##
                    )
                ], errors: [404])
        ) { context in
            let body = try JSONBody.decode(UpdateChannelRequest.self, from: context.request)
            let channel = try await store.updateChannel(
                try Self.cid(context), name: body.name, topic: body.topic, by: context.authenticatedUser)
            return JSONBody.response(UpdatedChannelResponse(channel: channel))
        }
    }

    private static func cid(_ context: RequestContext) throws -> ChannelID {
        try ChannelID.parse(context.parameter("cid"))
    }

    private static func isAdmin(_ context: RequestContext, _ store: ChatStore) async throws -> Bool {
        try await store.isAdministrator(context.claims!)
    }
}

struct CreateTeamChannelRequest: Decodable {
    var name: String
    var topic: String?
    var `public`: Bool?
    var members: [String]?
}

struct AddMembersRequest: Decodable {
    var members: [String]
}

struct UpdateChannelRequest: Decodable {
    var name: String?
    var topic: String?
}

struct PublicChannelsResponse: Encodable {
    var channels: [ChannelListing]
}

struct UpdatedChannelResponse: Encodable {
    var channel: Channel
}
