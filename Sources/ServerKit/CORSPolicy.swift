import HTTPCore

/// Cross-origin access: off unless origins are listed, and then only for those exact origins
/// (scheme, host and port, e.g. `https://chat.example.com`). Never `*`: the API takes bearer
/// tokens, and a page on any other origin has no business reading the answers.
package struct CORSPolicy: Sendable {
    package let allowedOrigins: Set<String>

    package init(allowedOrigins: [String]) {
        self.allowedOrigins = Set(allowedOrigins.map { $0.lowercased() })
    }

    package func allows(_ origin: String) -> Bool { allowedOrigins.contains(origin.lowercased()) }

    /// The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`) from an
    /// allowed origin; nil when this is not one (it is then routed like any request).
    package func preflight(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "OPTIONS", let origin = request.header("Origin"), allows(origin),
            request.header("Access-Control-Request-Method") != nil
        else { return nil }
        return HTTPResponse(
            status: 204,
            headers: [
                ("Access-Control-Allow-Origin", origin),
                ("Access-Control-Allow-Methods", "GET, POST"),
                ("Access-Control-Allow-Headers", "Authorization, Content-Type"),
                ("Access-Control-Max-Age", "600"),
                ("Vary", "Origin"),
            ])
    }

    /// Adds the headers that let an allowed origin read `response`.
    package func decorate(_ response: HTTPResponse, for request: HTTPRequest) -> HTTPResponse {
        guard let origin = request.header("Origin"), allows(origin) else { return response }
        return response.adding("Access-Control-Allow-Origin", origin).adding("Vary", "Origin").adding(
            "Access-Control-Expose-Headers", "Retry-After, X-Request-Id")
    }
}
