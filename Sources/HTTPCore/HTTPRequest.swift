import Foundation

/// An HTTP request as the server received it, body included.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, …, as sent (a token; case-sensitive, as HTTP methods are).
    public var method: String
    /// The path, still percent-encoded, without the query string.
    public var path: String
    /// The query string after `?`, still encoded (empty when absent).
    public var queryString: String
    /// Header names and values in the order received.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The client's IP address.
    public var remoteAddress: String
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var minorVersion: Int
    /// Says when the client goes away before the answer (set by the server for a request it read
    /// from a connection; nil for one made by hand).
    public var hangUp: HTTPHangUp?

    public init(
        method: String, path: String, queryString: String = "", headers: [(name: String, value: String)] = [],
        body: [UInt8] = [], remoteAddress: String = "", minorVersion: Int = 1
    ) {
        self.method = method
        self.path = path
        self.queryString = queryString
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.minorVersion = minorVersion
    }

    /// The first header with this name, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { Self.namesMatch($0.name, name) }?.value
    }

    /// Every value of the headers with this name, in order.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// Header names are ASCII tokens (the parser refuses anything else), so an ASCII case fold
    /// compares them; Foundation's locale-aware comparison cost more than the rest of a lookup.
    static func namesMatch(_ a: String, _ b: String) -> Bool {
        let a = a.utf8
        let b = b.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= UInt8(ascii: "a") && (x | 0x20) <= UInt8(ascii: "z"))
        }
    }

    /// Path segments, percent-decoded; `nil` when a segment is not valid percent-encoding or
    /// UTF-8. `/api/channels/a%3Ab` → `["api", "channels", "a:b"]`.
    public var pathSegments: [String]? {
        var segments: [String] = []
        for raw in path.split(separator: "/", omittingEmptySubsequences: true) {
            // A segment without an escape decodes to itself (most do; Foundation's decoding
            // costs more than the rest of the routing).
            guard raw.utf8.contains(UInt8(ascii: "%")) else {
                segments.append(String(raw))
                continue
            }
            guard let decoded = String(raw).removingPercentEncoding else { return nil }
            segments.append(decoded)
        }
        return segments
    }

    /// Query parameters, decoded (`+` is a space); the first value wins for repeated names.
    /// `nil` when a name or value is not valid percent-encoded UTF-8 (`before=%ff`), so that
    /// callers can refuse it rather than act as if the parameter were absent.
    public var validatedQuery: [String: String]? {
        var result: [String: String] = [:]
        for pair in queryString.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String? {
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = decode(parts[0]) else { return nil }
            guard let value = parts.count > 1 ? decode(parts[1]) : "" else { return nil }
            if result[name] == nil { result[name] = value }
        }
        return result
    }

    /// Query parameters as `validatedQuery` decodes them, or empty when the query is invalid.
    public var query: [String: String] { validatedQuery ?? [:] }

    /// Whether the client asked to keep the connection open after this request.
    public var wantsKeepAlive: Bool {
        let tokens = headerValues("Connection").flatMap { $0.lowercased().split(separator: ",") }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        if tokens.contains("close") { return false }
        return minorVersion >= 1 || tokens.contains("keep-alive")
    }
}
