import ChatStore
import Foundation

/// What a route handler gets: the request, path parameters and the authenticated user.
public struct RequestContext: Sendable {
    public var request: HTTPRequest
    /// Values of `{name}` segments, percent-decoded.
    public var parameters: [String: String]
    /// The token's user (routes that need authentication only).
    public var user: UserID?

    /// The authenticated user; routes marked `authenticated` always have one.
    public var authenticatedUser: UserID {
        guard let user else { preconditionFailure("route is not marked authenticated") }
        return user
    }

    public func parameter(_ name: String) -> String {
        guard let value = parameters[name] else { preconditionFailure("route pattern has no {\(name)}") }
        return value
    }
}

/// One API route: method, path pattern such as `/api/channels/{cid}/messages`, and handler.
public struct Route: Sendable {
    public var method: String
    public var pattern: String
    public var authenticated: Bool
    public var handler: @Sendable (RequestContext) throws -> HTTPResponse

    var segments: [Substring] { pattern.split(separator: "/") }
}

/// Routes being collected before a `Router` is made from them.
public struct RouteList: Sendable {
    public private(set) var routes: [Route] = []

    public init() {}

    public mutating func add(
        _ method: String, _ pattern: String, authenticated: Bool = true,
        _ handler: @escaping @Sendable (RequestContext) throws -> HTTPResponse
    ) {
        precondition(
            !routes.contains { $0.method == method && $0.pattern == pattern }, "duplicate route \(method) \(pattern)")
        routes.append(Route(method: method, pattern: pattern, authenticated: authenticated, handler: handler))
    }
}

/// Matches requests to routes, authenticates them, and turns thrown errors into JSON answers.
/// Requests no route claims go to `fallback` (the web app's files).
public final class Router: HTTPResponder {
    public let routes: [Route]
    private let authenticate: @Sendable (HTTPRequest) throws -> UserID
    private let fallback: (@Sendable (HTTPRequest) -> HTTPResponse)?

    public init(
        routes: RouteList, authenticate: @escaping @Sendable (HTTPRequest) throws -> UserID,
        fallback: (@Sendable (HTTPRequest) -> HTTPResponse)? = nil
    ) {
        self.routes = routes.routes
        self.authenticate = authenticate
        self.fallback = fallback
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
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
                var context = RequestContext(request: request, parameters: parameters, user: nil)
                if route.authenticated { context.user = try authenticate(request) }
                var response = try route.handler(context)
                if request.method == "HEAD" { response.body = [] }
                return response.adding("Cache-Control", "no-store")
            } catch {
                return APIError(error).response
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

    static func match(_ pattern: [Substring], _ segments: [String]) -> [String: String]? {
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
