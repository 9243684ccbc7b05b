import CCivetWeb
import Foundation

/// Answers HTTP requests. Called on a server worker thread; may block briefly (database
/// work), but long work belongs elsewhere.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) -> HTTPResponse
}

/// A failure starting the server.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// An HTTP/1.1 and WebSocket server on CivetWeb.
///
/// Every request is read in full (up to `maxBodyBytes`, else 413) and handed to the responder;
/// requests for `webSocketPath` that ask for an upgrade go to the WebSocket responder.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 0), responder: app, webSocket: ("/api/connect", hub))
/// let port = try server.start()
/// ```
public final class HTTPServer: @unchecked Sendable {
    // @unchecked Sendable: `context` is written only by start()/stop(), which the owner calls
    // from one thread; CivetWeb's worker threads only read the immutable configuration.

    public struct Configuration: Sendable {
        /// Address to listen on; loopback unless told otherwise.
        public var host: String = "127.0.0.1"
        /// Port; 0 picks a free one (see `start()`'s result).
        public var port: Int = 8080
        /// Largest request body; larger ones get 413.
        public var maxBodyBytes: Int = 64 * 1024
        /// Worker threads. Every open WebSocket holds one, so this bounds concurrent sockets.
        public var threads: Int = 256
        /// Idle WebSocket read timeout; the server pings the client when it passes.
        public var webSocketTimeoutMilliseconds: Int = 30_000
        /// Threads that run handler code (see `WorkerPool`): the most requests handled at once.
        public var handlerThreads: Int = 16

        public init(host: String = "127.0.0.1", port: Int = 8080) {
            self.host = host
            self.port = port
        }
    }

    public let configuration: Configuration
    let responder: any HTTPResponder
    let webSocketPath: String?
    let webSocketResponder: (any WebSocketResponder)?
    private var context: OpaquePointer?
    private var callbacks = mg_callbacks()
    private var pool: WorkerPool?

    /// Runs handler code on a thread with a full-size stack.
    func onWorker<T>(_ body: @escaping () -> T) -> T {
        guard let pool else { return body() }
        return pool.run(body)
    }

    public init(
        configuration: Configuration, responder: any HTTPResponder,
        webSocket: (path: String, responder: any WebSocketResponder)? = nil
    ) {
        self.configuration = configuration
        self.responder = responder
        self.webSocketPath = webSocket?.path
        self.webSocketResponder = webSocket?.responder
    }

    deinit { stop() }

    /// Starts listening; returns the bound port.
    @discardableResult
    public func start() throws -> Int {
        precondition(context == nil, "server already started")
        _ = mg_init_library(0)
        pool = WorkerPool(count: configuration.handlerThreads)
        let options = [
            "listening_ports", "\(configuration.host):\(configuration.port)",
            "num_threads", String(configuration.threads),
            "enable_keep_alive", "yes",
            "keep_alive_timeout_ms", "15000",
            "request_timeout_ms", "15000",
            "websocket_timeout_ms", String(configuration.webSocketTimeoutMilliseconds),
            "enable_websocket_ping_pong", "yes",
            "decode_url", "no",
            "listen_backlog", "512",
            "connection_queue", "512",
        ]
        callbacks.log_message = { _, _ in 1 }  // quiet: errors reach clients as responses
        var errorText = [CChar](repeating: 0, count: 256)
        var errorCode: UInt32 = 0
        let owned = options.map { strdup($0) }
        defer { owned.forEach { free($0) } }
        var cOptions: [UnsafePointer<CChar>?] = owned.map { UnsafePointer($0) } + [nil]
        let started: OpaquePointer? = cOptions.withUnsafeMutableBufferPointer { optionPointer in
            withUnsafeMutablePointer(to: &callbacks) { callbackPointer in
                errorText.withUnsafeMutableBufferPointer { textBuffer in
                    withUnsafeMutablePointer(to: &errorCode) { codePointer in
                        var initData = mg_init_data(
                            callbacks: callbackPointer, user_data: nil, configuration_options: optionPointer.baseAddress
                        )
                        var errorData = mg_error_data(
                            code: codePointer, text: textBuffer.baseAddress, text_buffer_size: textBuffer.count)
                        return mg_start2(&initData, &errorData)
                    }
                }
            }
        }
        guard let started else {
            pool?.stop()
            pool = nil
            let message = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw HTTPServerError(
                description:
                    "could not listen on \(configuration.host):\(configuration.port) (port in use, or not an IPv4 address here?): \(message.isEmpty ? "error \(errorCode)" : message)"
            )
        }
        context = started
        let me = Unmanaged.passUnretained(self).toOpaque()
        if let webSocketPath, webSocketResponder != nil {
            mg_set_websocket_handler(
                started, webSocketPath, webSocketConnectCallback, webSocketReadyCallback, webSocketDataCallback,
                webSocketCloseCallback, me)
        }
        mg_set_request_handler(started, "/", requestCallback, me)
        var ports = [mg_server_port](repeating: mg_server_port(), count: 4)
        let count = mg_get_server_ports(started, Int32(ports.count), &ports)
        return count > 0 ? Int(ports[0].port) : configuration.port
    }

    /// Stops listening and waits for the worker threads to finish. Open WebSockets are closed.
    public func stop() {
        guard let context else { return }
        mg_stop(context)
        self.context = nil
        pool?.stop()
    }

    static func server(from data: UnsafeMutableRawPointer?) -> HTTPServer {
        Unmanaged<HTTPServer>.fromOpaque(data!).takeUnretainedValue()
    }

    /// Reads the request line, headers and body from a CivetWeb connection.
    static func request(from connection: OpaquePointer, readBody: Bool, maxBodyBytes: Int) -> Result<
        HTTPRequest, BodyTooLarge
    > {
        let info = mg_get_request_info(connection)!.pointee
        var headers: [(name: String, value: String)] = []
        withUnsafePointer(to: info.http_headers) { tuple in
            tuple.withMemoryRebound(to: mg_header.self, capacity: Int(MG_MAX_HEADERS)) { list in
                for index in 0..<Int(max(0, min(info.num_headers, MG_MAX_HEADERS))) {
                    guard let name = list[index].name, let value = list[index].value else { continue }
                    headers.append((String(cString: name), String(cString: value)))
                }
            }
        }
        let remote = withUnsafeBytes(of: info.remote_addr) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        let target =
            info.local_uri_raw.map { String(cString: $0) } ?? info.request_uri.map { String(cString: $0) } ?? "/"
        var request = HTTPRequest(
            method: info.request_method.map { String(cString: $0) } ?? "GET",
            path: target,
            queryString: info.query_string.map { String(cString: $0) } ?? "",
            headers: headers, remoteAddress: remote)
        guard readBody else { return .success(request) }

        let declared = info.content_length
        let chunked = request.header("Transfer-Encoding")?.lowercased().contains("chunked") ?? false
        if declared > Int64(maxBodyBytes) { return .failure(BodyTooLarge()) }
        guard declared > 0 || chunked else { return .success(request) }
        let limit = declared > 0 ? Int(declared) : maxBodyBytes + 1
        var body = [UInt8](repeating: 0, count: limit)
        var filled = 0
        while filled < limit {
            let read = body.withUnsafeMutableBytes { mg_read(connection, $0.baseAddress! + filled, limit - filled) }
            if read <= 0 { break }
            filled += Int(read)
        }
        if filled > maxBodyBytes { return .failure(BodyTooLarge()) }
        body.removeSubrange(filled...)
        request.body = body
        return .success(request)
    }

    struct BodyTooLarge: Error {}

    /// Writes a complete response as raw bytes, bypassing CivetWeb's response state (which is
    /// not set up while a WebSocket upgrade is being decided).
    static func writeRaw(_ response: HTTPResponse, to connection: OpaquePointer) {
        var head = "HTTP/1.1 \(response.status) \(HTTPResponse.reason(for: response.status))\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + response.body
        bytes.withUnsafeBytes { _ = mg_write(connection, $0.baseAddress, $0.count) }
    }

    /// Writes a complete response.
    static func write(_ response: HTTPResponse, to connection: OpaquePointer, close: Bool = false) {
        if close { mg_disable_connection_keep_alive(connection) }
        mg_response_header_start(connection, Int32(response.status))
        for (name, value) in response.headers {
            mg_response_header_add(connection, name, value, -1)
        }
        mg_response_header_add(connection, "Content-Length", String(response.body.count), -1)
        mg_response_header_send(connection)
        if !response.body.isEmpty {
            response.body.withUnsafeBytes { _ = mg_write(connection, $0.baseAddress, $0.count) }
        }
    }
}

private let requestCallback: mg_request_handler = { connection, data in
    guard let connection else { return 0 }
    let server = HTTPServer.server(from: data)
    switch HTTPServer.request(from: connection, readBody: true, maxBodyBytes: server.configuration.maxBodyBytes) {
    case .failure:
        let response = HTTPResponse.json(
            bytes: Array(
                #"{"error":{"status":413,"code":"body_too_large","message":"request body over \#(server.configuration.maxBodyBytes) bytes"}}"#
                    .utf8),
            status: 413)
        HTTPServer.write(response, to: connection, close: true)
        return 413
    case .success(let request):
        let response = server.onWorker { server.responder.respond(to: request) }
        HTTPServer.write(response, to: connection)
        return Int32(response.status)
    }
}
