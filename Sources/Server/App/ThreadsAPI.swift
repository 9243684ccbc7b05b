import ChatStore
import Foundation
import HTTPCore
import ServerKit

/// Threads: `/api/messages/{message_id}/thread` and its read state. A reply is sent as any
/// message is, with `parent_id`; these routes read a thread and mark it read. Like every route
/// on a message, they answer 404 for a message in a channel the caller is not in.
struct ThreadsAPI: Sendable {
    let store: ChatStore

    func add(to routes: inout RouteList) {
        routes.add(
            "GET", "/api/messages/{message_id}/thread",
            APIOperation(
                id: "getThread",
                summary:
                    "A thread: its first message and a page of replies, oldest first, ending just before 'before' (default: the newest). A reply's id stands for its thread. Nothing is marked read.",
                query: [
                    .init("before", APIOperation.ref("MessageID")),
                    .init("limit", ##"{"type": "integer", "minimum": 1, "maximum": 200, "default": 100}"##),
                ],
                answers: [.init(200, "The thread.", APIOperation.ref("ThreadPage"))], errors: [404])
        ) { context in
            let (before, limit) = try context.pageQuery(defaultLimit: 100)
            let page = try await store.thread(
                of: try Self.messageID(context), for: context.authenticatedUser, before: before, limit: limit)
            return JSONBody.response(page)
        }
        let readAnswer = ##"""
            {"type": "object", "required": ["parent_id", "changed"], "properties": {
              "parent_id": {"$ref": "#/components/schemas/MessageID"},
              "changed": {"type": "boolean", "description": "False when you had already read it all."}}}
            """##
        routes.add(
            "POST", "/api/messages/{message_id}/thread/read",
            APIOperation(
                id: "markThreadRead",
                summary:
                    "Mark a thread read to its newest reply; you follow it from now on. Your other tabs get a thread.read event.",
                answers: [.init(200, "Where you stand in the thread.", readAnswer)], errors: [404])
        ) { context in
            let result = try await store.markThreadRead(context.authenticatedUser, thread: try Self.messageID(context))
            return JSONBody.response(ThreadReadResponse(parent_id: result.parentID, changed: result.changed))
        }
    }

    private static func messageID(_ context: RequestContext) throws -> MessageID {
        try MessageID.validated(context.parameter("message_id"), field: "message_id")
    }
}

extension RequestContext {
    /// A history page's query: `before` (a message id) and `limit` (1…`ChatStore.maxPageSize`).
    func pageQuery(defaultLimit: Int) throws -> (before: MessageID?, limit: Int) {
        var limit = defaultLimit
        if let text = query["limit"] {
            guard let value = Int(text), (1...ChatStore.maxPageSize).contains(value) else {
                throw APIError.badRequest("limit must be an integer from 1 to \(ChatStore.maxPageSize)")
            }
            limit = value
        }
        return (try query["before"].map { try MessageID.validated($0, field: "before") }, limit)
    }
}

struct ThreadReadResponse: Encodable {
    var parent_id: MessageID
    var changed: Bool
}
