import Foundation

/// An HTTP request as the server received it, body included.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, …, as sent (upper case by convention, not enforced).
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

    public init(
        method: String, path: String, queryString: String = "", headers: [(name: String, value: String)] = [],
        body: [UInt8] = [], remoteAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.queryString = queryString
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The first header with this name, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Path segments, percent-decoded; `nil` when a segment is not valid percent-encoding or
    /// UTF-8. `/api/channels/a%3Ab` → `["api", "channels", "a:b"]`.
    public var pathSegments: [String]? {
        var segments: [String] = []
        for raw in path.split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = String(raw).removingPercentEncoding else { return nil }
            segments.append(decoded)
        }
        return segments
    }

    /// Query parameters, decoded (`+` is a space); the first value wins for repeated names.
    public var query: [String: String] {
        var result: [String: String] = [:]
        for pair in queryString.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String? {
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = decode(parts[0]) else { continue }
            let value = parts.count > 1 ? decode(parts[1]) : ""
            if result[name] == nil, let value { result[name] = value }
        }
        return result
    }
}
