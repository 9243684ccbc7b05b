import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why a Unix-domain socket operation failed: the call, the path, and the system's message.
package struct UnixSocketError: Swift.Error, CustomStringConvertible, Sendable {
    package let operation: String
    package let path: String
    package let code: Int32

    package var description: String {
        "\(operation) \(path): \(String(cString: strerror(code))) (errno \(code))"
    }

    /// No one is listening there (no socket file, or a stale one).
    package var isNotListening: Bool { code == ENOENT || code == ECONNREFUSED }
}

/// A connected or listening Unix-domain stream socket, closed when released.
///
/// One thread reads and one writes at a time (the engine client and server each keep to
/// that); `shutdown()` may be called from any thread to wake a blocked reader.
// @unchecked Sendable: the descriptor is immutable; reads and writes are system calls, and the
// callers keep to one reader and one writer at a time (see above).
package final class UnixSocket: @unchecked Sendable {
    package let descriptor: Int32
    package let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        close(descriptor)
    }

    /// The longest socket path the system takes.
    package static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Connects to the socket at `path`.
    package static func connect(to path: String) throws(UnixSocketError) -> UnixSocket {
        let socket = try make(path)
        let result = withAddress(path) { address, length in Glibc.connect(socket.descriptor, address, length) }
        guard result == 0 else { throw UnixSocketError(operation: "connect", path: path, code: errno) }
        return socket
    }

    /// Listens at `path` (which must not exist), owner-only.
    package static func listen(at path: String, backlog: Int32 = 64) throws(UnixSocketError) -> UnixSocket {
        let socket = try make(path)
        // Created owner-only: no moment where another user could connect.
        let previous = umask(0o177)
        let bound = withAddress(path) { address, length in bind(socket.descriptor, address, length) }
        let bindError = errno
        umask(previous)
        guard bound == 0 else { throw UnixSocketError(operation: "bind", path: path, code: bindError) }
        chmod(path, 0o600)
        guard Glibc.listen(socket.descriptor, backlog) == 0 else {
            throw UnixSocketError(operation: "listen", path: path, code: errno)
        }
        return socket
    }

    /// Waits for the next connection.
    package func accept() throws(UnixSocketError) -> UnixSocket {
        while true {
            let client = Glibc.accept(descriptor, nil, nil)
            if client >= 0 {
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                return UnixSocket(descriptor: client, path: path)
            }
            if errno == EINTR || errno == ECONNABORTED { continue }
            throw UnixSocketError(operation: "accept", path: path, code: errno)
        }
    }

    /// Writes all of `data`.
    package func write(_ data: Data) throws(UnixSocketError) {
        var failure: UnixSocketError?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = UnixSocketError(operation: "write to", path: path, code: errno)
                    return
                }
                offset += written
            }
        }
        if let failure { throw failure }
    }

    /// Reads what is there (waiting for something); an empty result at the end of the stream.
    package func read(maximum: Int = 65536) throws(UnixSocketError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, maximum, 0) }
            if count >= 0 { return Array(buffer[..<count]) }
            if errno == EINTR { continue }
            if errno == ECONNRESET { return [] }
            throw UnixSocketError(operation: "read from", path: path, code: errno)
        }
    }

    /// Ends both directions: a blocked read returns the end of the stream.
    package func shutdown() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// The user id of the process at the other end.
    package var peerUserID: uid_t? {
        // Linux's `struct ucred` (pid, uid, gid), which Swift's Glibc module does not export
        // (it needs _GNU_SOURCE); SO_PEERCRED is 17 on every Linux architecture.
        struct PeerCredentials {
            var pid: pid_t = 0
            var uid: uid_t = 0
            var gid: gid_t = 0
        }
        var credentials = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(descriptor, SOL_SOCKET, 17, &credentials, &length) == 0 else { return nil }
        return credentials.uid
    }

    /// Whether `path` is a socket file.
    package static func exists(at path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }

    private static func make(_ path: String) throws(UnixSocketError) -> UnixSocket {
        guard path.utf8.count <= maximumPathLength else {
            throw UnixSocketError(operation: "use the socket path", path: path, code: ENAMETOOLONG)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw UnixSocketError(operation: "socket for", path: path, code: errno) }
        return UnixSocket(descriptor: descriptor, path: path)
    }

    private static func withAddress<T>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T
    ) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
