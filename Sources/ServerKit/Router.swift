import ChatStore
import Foundation
import HTTPCore

/// What a route handler gets: the request, path parameters and the authenticated user.
public struct RequestContext: Sendable {
    public var request: HTTPRequest
    /// Values of `{name}` segments, percent-decoded.
    public var parameters: [String: String]
    /// The query, decoded (the router has refused requests whose query is not valid).
    public var query: [String: String]
    /// The token's claims (routes that need authentication only).
    public var claims: TokenClaims?
    /// Names this request in the server's log and in the `X-Request-Id` header.
    public var requestID: String

    /// The authenticated user; routes marked `authenticated` always have one.
    public var authenticatedUser: UserID {
        guard let claims else { preconditionFailure("route is not marked authenticated") }
        return claims.user
    }

    public func parameter(_ name: String) -> String {
        guard let value = parameters[name] else { preconditionFailure("route pattern has no {\(name)}") }
        return value
    }
}

/// One API route: method, path pattern such as `/api/channels/{cid}/messages`, its
/// description for the OpenAPI document, and the handler.
public struct Route: Sendable {
    public var method: String
    public let pattern: String
    public var authenticated: Bool
    public var operation: APIOperation
    public var handler: @Sendable (RequestContext) async throws -> HTTPResponse
    /// The pattern split at `/`, once: every request is matched against every route.
    package let segments: [Substring]

    package init(
        method: String, pattern: String, authenticated: Bool, operation: APIOperation,
        handler: @escaping @Sendable (RequestContext) async throws -> HTTPResponse
    ) {
        self.method = method
        self.pattern = pattern
        self.authenticated = authenticated
        self.operation = operation
        self.handler = handler
        segments = pattern.split(separator: "/")
    }
    /// `{name}` parts of the pattern.
    package var pathParameters: [String] {
        segments.filter { $0.hasPrefix("{") && $0.hasSuffix("}") }.map { String($0.dropFirst().dropLast()) }
    }
}

/// Routes being collected before a `Router` is made from them.
public struct RouteList: Sendable {
    public private(set) var routes: [Route] = []
    public init() {}

    public mutating func add(
        _ method: String, _ pattern: String, authenticated: Bool = true, _ operation: APIOperation,
        _ handler: @escaping @Sendable (RequestContext) async throws -> HTTPResponse
    ) {
        precondition(
            !routes.contains { $0.method == method && $0.pattern == pattern }, "duplicate route \(method) \(pattern)")
        routes.append(
            Route(
                method: method, pattern: pattern, authenticated: authenticated, operation: operation, handler: handler))
    }

    /// Drops the routes `keep` says no to.
    public mutating func keep(where keep: (Route) -> Bool) {
        routes.removeAll { !keep($0) }
    }
}

/// Matches requests to routes, authenticates them, applies the per-user rate limit and CORS,
/// and turns thrown errors into JSON answers (internal ones opaque, with a request id, and the
/// detail in the server's log). Requests no route claims go to `fallback` (the web app's files).
public final class Router: HTTPResponder {
    public let routes: [Route]
    private let authenticate: @Sendable (HTTPRequest) async throws -> TokenClaims
    private let fallback: (@Sendable (HTTPRequest) -> HTTPResponse)?
    package let limiter: RateLimiter
    package let cors: CORSPolicy
    private let log: @Sendable (String) -> Void

    package init(
        routes: RouteList, authenticate: @escaping @Sendable (HTTPRequest) async throws -> TokenClaims,
        limiter: RateLimiter = RateLimiter(rate: 0, burst: 1), cors: CORSPolicy = CORSPolicy(allowedOrigins: []),
        log: @escaping @Sendable (String) -> Void = Router.standardErrorLog,
        fallback: (@Sendable (HTTPRequest) -> HTTPResponse)? = nil
    ) {
        self.routes = routes.routes
        self.authenticate = authenticate
        self.limiter = limiter
        self.cors = cors
        self.log = log
        self.fallback = fallback
    }

    public static let standardErrorLog: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        let requestID = Self.makeRequestID()
        var response = await route(request, requestID: requestID)
        response = cors.decorate(response, for: request)
        return response.adding("X-Request-Id", requestID)
    }

    private func route(_ request: HTTPRequest, requestID: String) async -> HTTPResponse {
        if let preflight = cors.preflight(request) { return preflight }
        guard let segments = request.pathSegments else {
            return APIError.badRequest("the path is not valid percent-encoded UTF-8").response
        }
        var allowed: [String] = []
        for route in routes {
            guard let parameters = Self.match(route.segments, segments) else { continue }
            guard route.method == request.method || (route.method == "GET" && request.method == "HEAD") else {
                allowed.append(route.method)
                continue
            }
            do {
                guard let query = request.validatedQuery else {
                    throw APIError.badRequest("the query string is not valid percent-encoded UTF-8")
                }
                var context = RequestContext(
                    request: request, parameters: parameters, query: query, claims: nil, requestID: requestID)
                if route.authenticated {
                    let claims = try await authenticate(request)
                    if let wait = limiter.take(claims.user) {
                        return APIError(
                            status: 429, code: "rate_limited",
                            message: "too many requests from user '\(claims.user)'; retry in \(wait) s"
                        ).response.adding("Retry-After", String(wait))
                    }
                    context.claims = claims
                }
                return try await route.handler(context).adding("Cache-Control", "no-store")
            } catch {
                return answer(error, request: request, requestID: requestID)
            }
        }
        if !allowed.isEmpty {
            return APIError(
                status: 405, code: "method_not_allowed", message: "use \(allowed.joined(separator: " or "))"
            )
            .response.adding("Allow", allowed.joined(separator: ", "))
        }
        if segments.first != "api", let fallback { return fallback(request) }
        return APIError.notFound("no route for \(request.method) \(request.path.prefix(200))").response
    }

    /// The client's answer to `error`; an internal one is logged with the request id.
    package func answer(_ error: any Error, request: HTTPRequest, requestID: String) -> HTTPResponse {
        let apiError = APIError(error, requestID: requestID)
        if apiError.status >= 500 {
            log("request \(requestID) \(request.method) \(request.path.prefix(200)): \(apiError.status): \(error)")
        }
        return apiError.response
    }

    package static func makeRequestID() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 16)
    }

    package static func match(_ pattern: [Substring], _ segments: [String]) -> [String: String]? {
        guard pattern.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (part, segment) in zip(pattern, segments) {
            if part.hasPrefix("{") && part.hasSuffix("}") {
                parameters[String(part.dropFirst().dropLast())] = segment
            } else if part != segment {
                return nil
            }
        }
        return parameters
    }
}
