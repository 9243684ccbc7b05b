import CLibUV

/// One kept-alive HTTP connection of the sender: sends its posts one at a time, in the order
/// they fell due, and reads each answer before writing the next.
///
/// Not thread-safe: lives on the sender's thread, which holds the only strong reference.
final class PostConnection {
    unowned let sender: Sender
    private var tcp: UnsafeMutablePointer<uv_tcp_t>?
    private var isConnected = false
    /// Posts waiting for this connection, first at `queueHead`.
    private var queue: [Post] = []
    private var queueHead = 0
    private var current: Post?
    /// When the current post was first written; its round trip runs from there to the answer.
    private var firstWrittenAt: Int64 = 0
    private var attempts = 0
    private var request: [UInt8] = []
    private var body: [UInt8] = []
    private var response: [UInt8] = []

    private static let contentHeaders = Array("\r\nContent-Type: application/json\r\nContent-Length: ".utf8)
    private static let bodyStart = Array(#"{"id":"load-"#.utf8)
    private static let textStart = Array(#"","text":"message "#.utf8)
    private static let bodyEnd = Array(#""}"#.utf8)
    private static let editStart = Array(#"{"text":"edit "#.utf8)
    private static let host = Array(" HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ".utf8)
    private static let noBody = Array("\r\nContent-Length: 0".utf8)
    private static let reaction = Array("/reactions/%F0%9F%91%8D".utf8)

    init(sender: Sender) {
        self.sender = sender
        request.reserveCapacity(1024)
        body.reserveCapacity(128)
        response.reserveCapacity(4096)
    }

    private static func of(_ pointer: UnsafeMutableRawPointer?) -> PostConnection {
        Unmanaged<PostConnection>.fromOpaque(pointer!).takeUnretainedValue()
    }

    func enqueue(_ post: Post) {
        queue.append(post)
        if current == nil { startNext() }
    }

    private func startNext() {
        guard current == nil, queueHead < queue.count else { return }
        current = queue[queueHead]
        queueHead += 1
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
        attempts = 0
        firstWrittenAt = 0
        send()
    }

    private func send() {
        attempts += 1
        response.removeAll(keepingCapacity: true)
        if let tcp {
            if isConnected { write(to: tcp) }  // else the connect's callback writes it
        } else {
            open()
        }
    }

    private func open() {
        let opened = TCPClient.connect(
            on: sender.thread.loop, to: sender.plan.address, owner: Unmanaged.passUnretained(self).toOpaque()
        ) { handle, status in PostConnection.of(handle!.pointee.data).connected(handle!, status) }
        switch opened {
        case .success(let tcp): self.tcp = tcp
        case .failure(let error): ended(error.description)
        }
    }

    private func connected(_ handle: UnsafeMutablePointer<uv_stream_t>, _ status: Int32) {
        guard let tcp, sotto_uv_stream(tcp) == handle else {
            return  // a handle closed before it connected: its connect was cancelled
        }
        guard status == 0 else {
            ended("connect: \(uvError(status))")
            return
        }
        isConnected = true
        let reading = TCPClient.startReading(tcp) { stream, count, buffer in
            let connection = PostConnection.of(stream!.pointee.data)
            if count < 0 {
                connection.ended("the server closed the connection (\(uvError(Int32(count))))")
            } else if count > 0 {
                connection.received(UnsafeRawBufferPointer(start: buffer!.pointee.base, count: count))
            }
        }
        guard reading == 0 else {
            ended("read: \(uvError(reading))")
            return
        }
        write(to: tcp)
    }

    /// Writes the current post, a new message's or an edit's text stamped with the clock right
    /// before the write.
    private func write(to tcp: UnsafeMutablePointer<uv_tcp_t>) {
        guard let post = current else { return }
        let plan = sender.plan
        let now = monotonicNanoseconds()
        if firstWrittenAt == 0 { firstWrittenAt = now }
        body.removeAll(keepingCapacity: true)
        request.removeAll(keepingCapacity: true)
        switch post.kind {
        case .message:
            body += Self.bodyStart
            Self.appendDecimal(post.number, to: &body)
            body += Self.textStart
            request += plan.channels[post.channel].requestPrefix
        case .edit:
            body += Self.editStart
            messageRequest("PATCH", post.target)
        case .react:
            messageRequest("PUT", post.target)
            request.removeLast(Self.host.count)
            request += Self.reaction + Self.host
        case .delete:
            messageRequest("DELETE", post.target)
        }
        request += plan.users[post.author].tokenBytes
        if post.kind == .message || post.kind == .edit {
            Self.appendDecimal(post.number, to: &body)
            body.append(UInt8(ascii: " "))
            Self.appendDecimal(Int(now), to: &body)
            body += Self.bodyEnd
            request += Self.contentHeaders
            Self.appendDecimal(body.count, to: &request)
        } else {
            request += Self.noBody
        }
        request += endOfHTTPHead
        request += body
        if !TCPClient.write(request, to: tcp) { ended("the write failed") }
    }

    /// `METHOD /api/messages/load-<target> HTTP/1.1`, the host and the start of the token's header.
    private func messageRequest(_ method: String, _ target: Int) {
        request += Array(method.utf8)
        request += Array(" /api/messages/load-".utf8)
        Self.appendDecimal(target, to: &request)
        request += Self.host
    }

    /// The connection is gone. The server closes kept-alive connections idle for 15 s, and may
    /// do so as a request arrives: a post with no answer yet is sent again, once, on a new one.
    private func ended(_ reason: String) {
        if let tcp { TCPClient.close(tcp) }
        tcp = nil
        isConnected = false
        guard current != nil else { return }
        if attempts < 2 && response.isEmpty {
            send()
        } else {
            finish(ok: false, answered: false, reason)
        }
    }

    private func received(_ bytes: UnsafeRawBufferPointer) {
        guard current != nil else { return }  // nothing was asked: not an answer to anything
        response.append(contentsOf: bytes)
        let progress = response.withUnsafeBytes { Self.parse($0) }
        switch progress {
        case .incomplete:
            break
        case .malformed(let reason):
            // What follows on this connection cannot be told apart from this answer: start over.
            if let tcp { TCPClient.close(tcp) }
            tcp = nil
            isConnected = false
            finish(ok: false, answered: true, reason)
        case .complete(let status):
            response.removeAll(keepingCapacity: true)
            finish(ok: status == 200 || status == 201, answered: true, "HTTP \(status)")
        }
    }

    private func finish(ok: Bool, answered: Bool, _ reason: String) {
        guard let post = current else { return }
        current = nil
        let roundTrip = answered ? monotonicNanoseconds() - firstWrittenAt : nil
        sender.answered(post, ok: ok, roundTrip: roundTrip, failure: reason)
        startNext()
    }

    // MARK: Bytes

    private static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        precondition(value >= 0)
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    private enum ResponseProgress {
        case incomplete
        case malformed(String)
        /// The whole answer is in (status line, head and a `Content-Length` body).
        case complete(status: Int)
    }

    /// Reads the answer at the start of `bytes`: its status and where its body ends.
    private static func parse(_ bytes: UnsafeRawBufferPointer) -> ResponseProgress {
        guard let headEnd = firstIndex(of: endOfHTTPHead, in: bytes) else {
            return bytes.count > 16 * 1024 ? .malformed("an answer head past 16 KB") : .incomplete
        }
        // Through the last line's CRLF, so that every header line ends in one.
        let lines = UnsafeRawBufferPointer(rebasing: bytes[..<(headEnd + 2)])
        // "HTTP/1.1 201 Created"
        guard lines.count >= 12, lines.starts(with: "HTTP/1.".utf8), lines[8] == UInt8(ascii: " "),
            let status = decimal(UnsafeRawBufferPointer(rebasing: lines[9..<12]))
        else {
            return .malformed("an answer that is not HTTP/1.x")
        }
        var length = 0
        var lineStart = 0
        for index in 0..<lines.count where lines[index] == 10 {
            let line = UnsafeRawBufferPointer(rebasing: lines[lineStart..<index])
            lineStart = index + 1
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = UnsafeRawBufferPointer(rebasing: line[..<colon])
            // The value without its spaces and the line's CR.
            var value = UnsafeRawBufferPointer(rebasing: line[(colon + 1)...])
            while let first = value.first, first == 32 || first == 9 { value = .init(rebasing: value.dropFirst()) }
            while let last = value.last, last == 32 || last == 9 || last == 13 {
                value = .init(rebasing: value.dropLast())
            }
            if equalIgnoringCase(name, "content-length") {
                guard let parsed = decimal(value) else {
                    return .malformed("Content-Length: \(String(decoding: value, as: UTF8.self))")
                }
                length = parsed
            } else if equalIgnoringCase(name, "transfer-encoding") {
                return .malformed("an answer in chunks, which a POST's answer never is")
            }
        }
        let total = headEnd + endOfHTTPHead.count + length
        guard bytes.count >= total else { return .incomplete }
        return bytes.count == total ? .complete(status: status) : .malformed("bytes after an answer, asked for none")
    }

    /// The non-negative integer `bytes` spell, digits only.
    private static func decimal(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// Whether `bytes` are `name`'s (ASCII, lowercase) in any case: header names are not cased.
    private static func equalIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        for (offset, byte) in bytes.enumerated() {
            let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
            guard lower == name.utf8Start[offset] else { return false }
        }
        return true
    }
}
