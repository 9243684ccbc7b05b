import Foundation

#if canImport(Glibc)
    import Glibc
#endif

public struct SocketError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) { self.description = description }
}

/// A TCP connection to 127.0.0.1 with a receive timeout, for tests. Its calls block a thread of
/// their own (`TestIO`), never the awaiting test's.
///
/// `@unchecked Sendable`: a test uses one socket from one task, one awaited call at a time.
public final class TestSocket: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []

    /// `receiveBuffer` shrinks the kernel's receive buffer (set before connecting, so the
    /// window is small from the start): a client that reads nothing then fills up quickly.
    public init(port: Int, timeout: Double = 30, receiveBuffer: Int? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketError(description: "socket() failed") }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw SocketError(description: "connect to port \(port) failed: errno \(errno)")
        }
        setTimeout(timeout)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(fd) }

    public func setTimeout(_ seconds: Double) {
        var time = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    public func write(_ bytes: [UInt8]) async throws {
        try await TestIO.run { try self.writeNow(bytes) }
    }

    public func write(_ text: String) async throws { try await write(Array(text.utf8)) }

    /// Reads exactly `count` bytes.
    public func read(exactly count: Int) async throws -> [UInt8] {
        try await TestIO.run { try self.readNow(exactly: count) }
    }

    /// Reads up to and including `delimiter`.
    public func read(through delimiter: [UInt8]) async throws -> [UInt8] {
        try await TestIO.run { try self.readNow(through: delimiter) }
    }

    /// Reads until the peer closes.
    public func readToEnd() async throws -> [UInt8] {
        try await TestIO.run { try self.readToEndNow() }
    }

    /// True when the peer has closed (EOF within the timeout).
    public func isClosedByPeer() async -> Bool {
        (try? await TestIO.run { try self.fill() }) == false
    }

    // MARK: Blocking, on the calling thread (TestIO's)

    func writeNow(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }  // a signal (a child process ending), not an error
            guard sent > 0 else { throw SocketError(description: "send failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads more bytes into the buffer; false on EOF, throws on timeout.
    @discardableResult
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        var count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        // A signal (a child process of another test ending) interrupts the wait; wait again.
        while count < 0 && errno == EINTR {
            count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        }
        if count == 0 { return false }
        guard count > 0 else { throw SocketError(description: "receive timed out or failed: errno \(errno)") }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    func readNow(exactly count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else {
                throw SocketError(description: "connection closed after \(buffer.count) of \(count) bytes")
            }
        }
        let result = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return result
    }

    func readNow(through delimiter: [UInt8]) throws -> [UInt8] {
        while true {
            if let range = firstRange(of: delimiter) {
                let result = Array(buffer[0..<range])
                buffer.removeFirst(range)
                return result
            }
            guard try fill() else { throw SocketError(description: "connection closed before delimiter") }
        }
    }

    func readToEndNow() throws -> [UInt8] {
        while try fill() {}
        defer { buffer.removeAll() }
        return buffer
    }

    private func firstRange(of delimiter: [UInt8]) -> Int? {
        guard buffer.count >= delimiter.count else { return nil }
        for start in 0...(buffer.count - delimiter.count)
        where buffer[start..<start + delimiter.count].elementsEqual(delimiter) {
            return start + delimiter.count
        }
        return nil
    }
}
