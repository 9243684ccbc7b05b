import CPicoHTTPParser

/// Turns the bytes of one connection into requests: picohttpparser reads the request line and
/// headers, this type applies the framing rules on top and reads the body.
///
/// A state machine without I/O: `append(_:)` what arrived, then call `next()` until it
/// returns nil (more bytes needed). After a failure the decoder stays failed.
///
/// Refused (RFC 9112 §2.2, §5, §6): bare LF line ends, obsolete line folding, whitespace
/// before a colon, a missing or repeated `Host` in HTTP/1.1, repeated or non-decimal
/// `Content-Length`, `Content-Length` together with `Transfer-Encoding`, any transfer coding
/// but `chunked`, more than `maxHeaders` headers or a head over `maxHeaderBytes` (431), a body
/// over its limit (413: `maxBodyBytes`, or what `bodyLimit` gives the request's route).
public struct HTTPRequestDecoder {
    public struct Limits: Sendable {
        public var maxHeaderBytes = 16 * 1024
        public var maxHeaders = 64
        public var maxBodyBytes = 64 * 1024
        /// A route's own body limit, from the request's head (method, path, headers: before any
        /// of the body is read); nil for `maxBodyBytes`. An upload route can take more than the
        /// rest, and only for a request that proves who sends it.
        public var bodyLimit: @Sendable (_ head: HTTPRequest) -> Int? = { _ in nil }
        public init() {}

        /// The most body bytes the request with this head may send.
        public func maxBodyBytes(for head: HTTPRequest) -> Int {
            bodyLimit(head) ?? maxBodyBytes
        }
    }

    enum State {
        case head
        case body(HTTPRequest, remaining: Int)
        case chunked(HTTPRequest, phr_chunked_decoder, limit: Int)
        case failed
    }

    public let limits: Limits
    public let remoteAddress: String
    private var buffer: [UInt8] = []
    private var state = State.head
    /// The path of the request being read, from the moment its head is read until the next head
    /// starts: every failure meanwhile carries it (``HTTPFramingError/path``).
    public private(set) var pathBeingRead: String?

    public init(limits: Limits = Limits(), remoteAddress: String = "") {
        self.limits = limits
        self.remoteAddress = remoteAddress
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
    }

    /// Bytes received and not yet returned as a request.
    var bufferedByteCount: Int { buffer.count }

    /// True between requests with nothing of the next one received yet.
    public var isIdle: Bool {
        if case .head = state { return buffer.isEmpty }
        return false
    }

    /// True once the head of a request is in and its body is still arriving.
    public var isReadingBody: Bool {
        switch state {
        case .body, .chunked: true
        case .head, .failed: false
        }
    }

    /// Bytes received after the last request returned (for example frames sent right after a
    /// WebSocket upgrade); the decoder forgets them.
    public mutating func takeBuffered() -> [UInt8] {
        defer { buffer.removeAll() }
        return buffer
    }

    /// The next complete request, a framing failure, or nil when more bytes are needed.
    public mutating func next() -> Result<HTTPRequest, HTTPFramingError>? {
        switch state {
        case .failed:
            return nil
        case .head:
            return parseHead()
        case .body(var request, let remaining):
            guard buffer.count >= remaining else { return nil }
            request.body = Array(buffer[0..<remaining])
            buffer.removeFirst(remaining)
            state = .head
            return .success(request)
        case .chunked(var request, var decoder, let limit):
            // phr_decode_chunked decodes in place: the decoded bytes move to the front.
            var size = buffer.count
            let result = buffer.withUnsafeMutableBytes { raw in
                phr_decode_chunked(&decoder, raw.baseAddress?.assumingMemoryBound(to: CChar.self), &size)
            }
            if result == -1 { return fail(.bad("malformed chunked body", code: "bad_chunked_body")) }
            request.body.append(contentsOf: buffer[0..<size])
            guard request.body.count <= limit else { return fail(tooLarge(limit)) }
            if result == -2 {
                buffer.removeAll(keepingCapacity: true)
                state = .chunked(request, decoder, limit: limit)
                return nil
            }
            // What follows the body (a pipelined request) was moved to just after the decoded bytes.
            let leftover = Int(result)
            buffer = Array(buffer[size..<(size + leftover)])
            state = .head
            return .success(request)
        }
    }

    private mutating func fail(_ error: HTTPFramingError) -> Result<HTTPRequest, HTTPFramingError> {
        state = .failed
        buffer.removeAll()
        var error = error
        if error.path == nil { error.path = pathBeingRead }
        return .failure(error)
    }

    private func tooLarge(_ limit: Int) -> HTTPFramingError {
        HTTPFramingError(status: 413, code: "body_too_large", message: "request body over \(limit) bytes")
    }

    private func headerTooLarge(_ what: String) -> HTTPFramingError {
        HTTPFramingError(status: 431, code: "headers_too_large", message: what)
    }

    private mutating func parseHead() -> Result<HTTPRequest, HTTPFramingError>? {
        pathBeingRead = nil
        // RFC 9112 §2.2 lets a server ignore empty lines before the request line.
        while buffer.count >= 2 && buffer[0] == 0x0D && buffer[1] == 0x0A { buffer.removeFirst(2) }
        guard !buffer.isEmpty else { return nil }
        // Checks picohttpparser leaves to us: every LF preceded by CR, and the header count
        // (it gives the same -1 for "too many headers" as for malformed input).
        var lines = 0
        var end: Int?
        for index in 0..<min(buffer.count, limits.maxHeaderBytes + 4) where buffer[index] == 0x0A {
            guard index > 0, buffer[index - 1] == 0x0D else {
                return fail(.bad("line ends must be CRLF"))
            }
            if index >= 3 && buffer[index - 2] == 0x0A && buffer[index - 3] == 0x0D {
                end = index + 1
                break
            }
            lines += 1
            if lines - 1 > limits.maxHeaders {
                return fail(headerTooLarge("more than \(limits.maxHeaders) header fields"))
            }
        }
        guard let end else {
            if buffer.count > limits.maxHeaderBytes {
                return fail(headerTooLarge("request head over \(limits.maxHeaderBytes) bytes"))
            }
            return nil
        }
        guard end <= limits.maxHeaderBytes else {
            return fail(headerTooLarge("request head over \(limits.maxHeaderBytes) bytes"))
        }

        var method: UnsafePointer<CChar>?
        var methodLength = 0
        var target: UnsafePointer<CChar>?
        var targetLength = 0
        var minor: Int32 = -1
        var fields = [phr_header](repeating: phr_header(), count: limits.maxHeaders + 1)
        var fieldCount = fields.count
        var parsed: (method: String, target: String, headers: [(name: String, value: String)])?
        var foldedLine = false
        let consumed = buffer.withUnsafeBytes { raw -> Int32 in
            let base = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
            let code = phr_parse_request(
                base, end, &method, &methodLength, &target, &targetLength, &minor, &fields, &fieldCount, 0)
            guard code > 0, let method, let target else { return code }
            func text(_ pointer: UnsafePointer<CChar>, _ count: Int) -> String {
                String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
            }
            var headers: [(name: String, value: String)] = []
            for field in fields.prefix(fieldCount) {
                guard let name = field.name else {
                    foldedLine = true
                    break
                }
                headers.append((text(name, field.name_len), field.value.map { text($0, field.value_len) } ?? ""))
            }
            parsed = (text(method, methodLength), text(target, targetLength), headers)
            return code
        }
        guard consumed > 0, let parsed else {
            return fail(.bad(consumed == -2 ? "incomplete request head" : "malformed request line or header"))
        }
        if foldedLine { return fail(.bad("obsolete line folding in a header")) }
        buffer.removeFirst(Int(consumed))

        guard minor == 0 || minor == 1 else {
            return fail(HTTPFramingError(status: 505, code: "http_version", message: "only HTTP/1.0 and 1.1"))
        }
        let pathAndQuery = parsed.target
        guard pathAndQuery.hasPrefix("/") || (pathAndQuery == "*" && parsed.method == "OPTIONS") else {
            return fail(.bad("the request target must be a path starting with '/'"))
        }
        let question = pathAndQuery.firstIndex(of: "?")
        var request = HTTPRequest(
            method: parsed.method, path: String(pathAndQuery[..<(question ?? pathAndQuery.endIndex)]),
            queryString: question.map { String(pathAndQuery[pathAndQuery.index(after: $0)...]) } ?? "",
            headers: parsed.headers, remoteAddress: remoteAddress, minorVersion: Int(minor))
        pathBeingRead = request.path
        let hosts = request.headerValues("Host")
        if minor == 1 && hosts.count != 1 {
            return fail(.bad(hosts.isEmpty ? "missing Host header" : "more than one Host header"))
        }
        if hosts.count > 1 { return fail(.bad("more than one Host header")) }

        let limit = limits.maxBodyBytes(for: request)
        let lengths = request.headerValues("Content-Length")
        let codings = request.headerValues("Transfer-Encoding")
        if !codings.isEmpty {
            guard lengths.isEmpty else { return fail(.bad("both Content-Length and Transfer-Encoding")) }
            guard minor == 1 else { return fail(.bad("Transfer-Encoding in an HTTP/1.0 request")) }
            guard codings.count == 1, codings[0].lowercased() == "chunked" else {
                return fail(
                    HTTPFramingError(
                        status: 501, code: "transfer_coding", message: "only 'Transfer-Encoding: chunked' is supported")
                )
            }
            request.body = []
            state = .chunked(
                request, phr_chunked_decoder(bytes_left_in_chunk: 0, consume_trailer: 1, _hex_count: 0, _state: 0),
                limit: limit)
            return next()
        }
        guard lengths.count <= 1 else { return fail(.bad("more than one Content-Length header")) }
        guard let lengthText = lengths.first else {
            state = .head
            return .success(request)
        }
        guard !lengthText.isEmpty, lengthText.utf8.count <= 18,
            lengthText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let length = Int(lengthText)
        else { return fail(.bad("Content-Length must be a decimal number")) }
        guard length <= limit else { return fail(tooLarge(limit)) }
        guard length > 0 else {
            state = .head
            return .success(request)
        }
        state = .body(request, remaining: length)
        return next()
    }
}
