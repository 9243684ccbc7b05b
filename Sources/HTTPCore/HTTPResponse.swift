import Foundation

/// An HTTP response: status, headers and a complete body, or a body streamed as it is
/// produced (`stream`).
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Extra headers; `Content-Length`, `Transfer-Encoding` and `Connection` are added by the
    /// server.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// A body written progressively after the head; `body` is then ignored.
    public var stream: HTTPBodyStream?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is written to `stream` as it is produced.
    public init(status: Int, headers: [(name: String, value: String)] = [], stream: HTTPBodyStream) {
        self.status = status
        self.headers = headers
        self.body = []
        self.stream = stream
    }

    /// A UTF-8 text response.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8")
        -> HTTPResponse
    {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: Array(text.utf8))
    }

    /// A JSON response from already-encoded bytes.
    public static func json(bytes: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: bytes)
    }

    /// Adds a header (does not replace one of the same name).
    public func adding(_ name: String, _ value: String) -> HTTPResponse {
        var copy = self
        copy.headers.append((name, value))
        return copy
    }

    /// The first header with this name, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Status line, headers and body in one buffer, so they leave in one write (a head sent
    /// apart from its body waits for the client's delayed ACK).
    ///
    /// `extraHeaders` (the server's defaults) are added unless the response has a header of
    /// that name; `omitBody` is for HEAD, where `Content-Length` still gives the body's size.
    public func serialized(
        keepAlive: Bool, extraHeaders: [(name: String, value: String)] = [], omitBody: Bool = false
    ) -> [UInt8] {
        var head = headLines(extraHeaders: extraHeaders)
        if status >= 200 && status != 204 && status != 304 { head += "Content-Length: \(body.count)\r\n" }
        head += keepAlive ? "\r\n" : "Connection: close\r\n\r\n"
        var bytes = Array(head.utf8)
        if !omitBody { bytes += body }
        return bytes
    }

    /// The head of a streamed response, which is the last on its connection: chunked for
    /// HTTP/1.1, delimited by the close otherwise.
    public func serializedStreamHead(chunked: Bool, extraHeaders: [(name: String, value: String)] = []) -> [UInt8] {
        var head = headLines(extraHeaders: extraHeaders)
        if chunked { head += "Transfer-Encoding: chunked\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8)
    }

    /// One chunk of a chunked body (RFC 9112 §7.1); never empty, which would end the body.
    static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        precondition(!bytes.isEmpty, "an empty chunk ends a chunked body")
        return Array((String(bytes.count, radix: 16) + "\r\n").utf8) + bytes + [0x0D, 0x0A]
    }

    /// The last chunk, with no trailers.
    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    private func headLines(extraHeaders: [(name: String, value: String)]) -> String {
        var head = "HTTP/1.1 \(status) \(Self.reason(for: status))\r\n"
        for (name, value) in headers where !Self.managed(name) {
            head += "\(name): \(Self.clean(value))\r\n"
        }
        for (name, value) in extraHeaders where header(name) == nil {
            head += "\(name): \(Self.clean(value))\r\n"
        }
        return head
    }

    /// Framing headers are the server's to write.
    private static func managed(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower == "content-length" || lower == "connection" || lower == "transfer-encoding"
    }

    /// A header value can never end the header line early (no response splitting). Scalars,
    /// not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
    private static func clean(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else { return value }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0 != "\0" })
        return String(scalars)
    }

    /// The standard reason phrase for a status code.
    public static func reason(for status: Int) -> String {
        switch status {
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 426: "Upgrade Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}
