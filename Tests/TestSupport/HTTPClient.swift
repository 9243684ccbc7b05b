import Foundation

/// A response read off the wire.
public struct WireResponse: Sendable {
    public var status: Int
    public var headers: [String: String]  // lowercased names
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    public func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw SocketError(description: "body is not a JSON object: \(text)")
        }
        return object
    }

    /// `error.code` of a JSON error body.
    public var errorCode: String? {
        ((try? json())?["error"] as? [String: Any])?["code"] as? String
    }
}

/// A minimal HTTP/1.1 client over a raw socket (one request per connection), so tests can send
/// exactly the bytes they mean, malformed ones included.
public struct HTTPClient: Sendable {
    public let port: Int
    public var token: String?
    /// Seconds a read may wait (a model's answer may take a while). 30 by default: when the whole
    /// suite starts at once on two cores, hundreds of tests' first steps queue on the cooperative
    /// pool ahead of a test server's answer, which once took more than 10 s.
    public var timeout: Double

    public init(port: Int, token: String? = nil, timeout: Double = 30) {
        self.port = port
        self.token = token
        self.timeout = timeout
    }

    public func request(
        _ method: String, _ path: String, json: Any? = nil, body: [UInt8]? = nil, headers: [String: String] = [:]
    ) async throws -> WireResponse {
        var payload = body ?? []
        var allHeaders = headers
        if let json {
            payload = Array(try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed]))
            allHeaders["Content-Type"] = "application/json"
        }
        if let token, allHeaders["Authorization"] == nil { allHeaders["Authorization"] = "Bearer \(token)" }
        if !payload.isEmpty || method == "POST" || method == "PUT" {
            allHeaders["Content-Length"] = String(payload.count)
        }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in allHeaders { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let socket = try TestSocket(port: port, timeout: timeout)
        let bytes = Array(head.utf8) + payload
        return try await TestIO.run {
            try socket.writeNow(bytes)
            return try Self.readResponseNow(from: socket)
        }
    }

    public func get(_ path: String) async throws -> WireResponse { try await request("GET", path) }
    public func post(_ path: String, _ json: Any) async throws -> WireResponse {
        try await request("POST", path, json: json)
    }

    /// Sends raw bytes and reads one response.
    public func raw(_ bytes: [UInt8]) async throws -> WireResponse {
        let socket = try TestSocket(port: port)
        return try await TestIO.run {
            try socket.writeNow(bytes)
            return try Self.readResponseNow(from: socket)
        }
    }

    public static func readResponse(from socket: TestSocket) async throws -> WireResponse {
        try await TestIO.run { try readResponseNow(from: socket) }
    }

    /// One chunk of a chunked body; nil for the last (empty) chunk, after its trailer line.
    public static func readChunk(from socket: TestSocket) async throws -> [UInt8]? {
        try await TestIO.run { try readChunkNow(from: socket) }
    }

    /// The status and headers (lowercased names) of a response, leaving its body unread.
    public static func readHead(from socket: TestSocket) async throws -> (status: Int, headers: [String: String]) {
        try await TestIO.run { try readHeadNow(from: socket) }
    }

    // MARK: Blocking, on the calling thread (TestIO's)

    static func readResponseNow(from socket: TestSocket) throws -> WireResponse {
        let (status, headers) = try readHeadNow(from: socket)
        let body: [UInt8]
        if let length = headers["content-length"].flatMap(Int.init) {
            body = try socket.readNow(exactly: length)
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            var bytes: [UInt8] = []
            while let chunk = try readChunkNow(from: socket) { bytes += chunk }
            body = bytes
        } else {
            body = try socket.readToEndNow()
        }
        return WireResponse(status: status, headers: headers, body: body)
    }

    static func readChunkNow(from socket: TestSocket) throws -> [UInt8]? {
        let sizeLine = String(decoding: try socket.readNow(through: Array("\r\n".utf8)).dropLast(2), as: UTF8.self)
        guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
            throw SocketError(description: "bad chunk size line '\(sizeLine)'")
        }
        if size == 0 {
            _ = try socket.readNow(through: Array("\r\n".utf8))
            return nil
        }
        let bytes = try socket.readNow(exactly: size)
        guard try socket.readNow(exactly: 2) == [0x0D, 0x0A] else {
            throw SocketError(description: "chunk without CRLF")
        }
        return bytes
    }

    static func readHeadNow(from socket: TestSocket) throws -> (status: Int, headers: [String: String]) {
        let head = String(decoding: try socket.readNow(through: Array("\r\n\r\n".utf8)), as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw SocketError(description: "empty response") }
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw SocketError(description: "bad status line in \(head)")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return (status, headers)
    }
}
