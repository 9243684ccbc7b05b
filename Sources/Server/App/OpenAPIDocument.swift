import AssistantServer
import Foundation
import OpenAIServer
import ServerKit

/// The OpenAPI 3 description of the JSON API, served at `/api/openapi.json`.
///
/// Paths are generated from the routes (`Route.operation`), so the document describes exactly
/// what the router serves; the data types the routes answer with are generated from the Swift
/// types (``OpenAPISchemas``), so they describe exactly what is sent.
enum OpenAPIDocument {
    /// The document for `routes`, as JSON text.
    static func json(for routes: [Route]) -> String {
        var paths: [String: [String: Any]] = [:]
        for route in routes {
            var item = paths[route.pattern] ?? [:]
            if !route.pathParameters.isEmpty {
                item["parameters"] = route.pathParameters.map { ["$ref": "#/components/parameters/\($0)"] }
            }
            item[route.method.lowercased()] = operation(route)
            paths[route.pattern] = item
        }
        let document: [String: Any] = [
            "openapi": "3.0.3",
            "info": [
                "title": "Sotto chat API", "version": "0.2.0",
                "description":
                    "Self-hosted messaging with on-device reply suggestions. Authenticate with 'Authorization: Bearer <token>' (mint one with 'sotto token <user-id>'), or in a browser with the session cookie POST /api/session sets (with its CSRF token in X-CSRF-Token on requests other than GET). Errors are {\"error\": {\"status\", \"code\", \"message\"}}.",
            ],
            "servers": [["url": "/"]],
            "security": [["bearerAuth": [String]()], ["cookieAuth": [String]()]],
            "paths": paths,
            "components": components,
        ]
        let data = try! JSONSerialization.data(
            withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    private static func operation(_ route: Route) -> [String: Any] {
        let spec = route.operation
        var operation: [String: Any] = ["operationId": spec.id, "summary": spec.summary]
        if (!route.authenticated && !spec.authenticatesItself) || spec.publicAtHTTPLevel {
            operation["security"] = [Any]()
        }
        if !spec.query.isEmpty {
            operation["parameters"] = spec.query.map { query -> [String: Any] in
                ["name": query.name, "in": "query", "required": false, "schema": schema(query.schema)]
            }
        }
        var responses: [String: Any] = [:]
        for answer in spec.answers {
            var response: [String: Any] = ["description": answer.description]
            if let body = answer.schema { response["content"] = content(answer.mediaTypes, schema: body) }
            responses[String(answer.status)] = response
        }
        var errors = Set(spec.errors)
        if spec.body != nil || !spec.query.isEmpty || !route.pathParameters.isEmpty { errors.insert(400) }
        if route.authenticated || spec.publicAtHTTPLevel || spec.authenticatesItself { errors.insert(401) }
        if spec.authenticatesItself { errors.insert(429) }
        if route.authenticated { errors.insert(429) }
        if let body = spec.body {
            errors.formUnion([413, 415])
            operation["requestBody"] = [
                "required": spec.bodyRequired, "content": content(spec.bodyMediaTypes, schema: body),
            ]
        }
        for status in errors where responses[String(status)] == nil {
            guard let name = errorResponses[status] else {
                preconditionFailure("no error response for \(status) in OpenAPIDocument.errorResponses")
            }
            responses[String(status)] = ["$ref": "#/components/responses/\(name)"]
        }
        operation["responses"] = responses
        return operation
    }

    /// Error statuses and their shared response in `components.responses`.
    static let errorResponses: [Int: String] = [
        400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 409: "Conflict", 413: "TooLarge",
        415: "UnsupportedMediaType", 429: "TooManyRequests", 502: "BadGateway", 503: "ServiceUnavailable",
    ]

    /// A `content` map: the same schema under each media type.
    private static func content(_ mediaTypes: [String], schema text: String) -> [String: Any] {
        Dictionary(uniqueKeysWithValues: mediaTypes.map { ($0, ["schema": schema(text)]) })
    }

    private static func schema(_ text: String) -> Any {
        guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
            preconditionFailure("route schema is not JSON: \(text)")
        }
        return value
    }

    /// The shared components: the sign-in scheme, path parameters, error answers and schemas,
    /// with the assistant's (``AssistantOpenAPI``) among them.
    private static var components: [String: Any] {
        let schemas: [String: Any]
        do {
            schemas = try OpenAPISchemas.all()
        } catch {
            preconditionFailure("the API's schemas: \(error)")
        }
        var parameters: [String: Any] = [
            "cid": pathParameter("cid", "Channel address type:id.", WireSchemas.ref("ChannelID")),
            "message_id": pathParameter("message_id", "A message id.", WireSchemas.ref("MessageID")),
            "job_id": pathParameter("job_id", "A model job's id.", ["type": "string", "pattern": "^[0-9a-f-]{1,40}$"]),
            "user_id": pathParameter("user_id", "A user id.", WireSchemas.ref("UserID")),
            "attachment_id": pathParameter(
                "attachment_id", "A file's id.", ["type": "string", "pattern": "^[0-9a-f-]{1,64}$"]),
            "emoji": pathParameter(
                "emoji", "One emoji, percent-encoded.", ["type": "string", "minLength": 1, "maxLength": 64]),
            "secret": pathParameter(
                "secret", "A one-time link's secret (after #join= in the link).",
                ["type": "string", "pattern": "^[A-Za-z0-9_-]{43}$"]),
        ]
        parameters.merge(AssistantOpenAPI.parameters) { _, new in new }
        var responses: [String: Any] = [:]
        for (status, name) in errorResponses {
            responses[name] = [
                "description": errorDescriptions[status] ?? name,
                "content": ["application/json": ["schema": WireSchemas.ref("Error")]],
            ]
        }
        return [
            "securitySchemes": [
                "bearerAuth": ["type": "http", "scheme": "bearer", "bearerFormat": "JWT"],
                "cookieAuth": [
                    "type": "apiKey", "in": "cookie", "name": SessionCookie.name,
                    "description":
                        "The web app's session, set by POST /api/session; requests other than GET also send the session's CSRF token in X-CSRF-Token.",
                ],
            ],
            "parameters": parameters,
            "responses": responses,
            "schemas": schemas,
        ]
    }

    private static func pathParameter(_ name: String, _ description: String, _ schema: [String: Any]) -> [String: Any] {
        ["name": name, "in": "path", "required": true, "description": description, "schema": schema]
    }

    /// What each error status means here.
    static let errorDescriptions: [Int: String] = [
        400: "Malformed input.",
        401: "Missing, malformed, forged or expired token.",
        403: "Not a member, or not allowed (creating users takes an admin token).",
        404: "No such channel, user or message.",
        409:
            "Clashes with stored state: a message id reused for a different message, a display name taken; or (code model_unavailable) the local model these features need is not there, the message saying why and what to do.",
        413: "Body over 64 KB.",
        415: "Body is not JSON.",
        429: "Over the per-user rate limit; retry after the Retry-After seconds.",
        502: "A server this one asked on your behalf (the configured image server) failed; the message says how.",
        503: "(OpenAI-compatible routes) The server has no model to run, the message saying why and what to do.",
    ]
}
