import Foundation

/// What the health probe saw: one entry per request, its milliseconds, or nil when it failed.
struct HealthTally: Sendable {
    var samples: [Double?] = []
}

/// `/api/health` sampled on a fresh connection every 50 ms, as a monitor would, on a thread of
/// its own with plain blocking sockets: what it measures is the server's answer, not a loop's.
final class HealthProbe: @unchecked Sendable {
    // @unchecked Sendable: `tally` is written only by the probe's thread, and read by `stop` only
    // after that thread signalled `ended` (the semaphore orders the two); `cpuClock` is written
    // by the thread before `start` returns, which waits for it.

    private let address: ServerAddress
    private var tally = HealthTally()
    private let stopping = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    private(set) var cpuClock = ThreadCPUClock(id: 0)
    private static let request = Array("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
    private static let timeoutSeconds = 5

    init(address: ServerAddress) {
        self.address = address
    }

    func start() {
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            cpuClock = .current()
            started.signal()
            repeat {
                tally.samples.append(probe())
            } while stopping.wait(timeout: .now() + .milliseconds(50)) == .timedOut
            ended.signal()
        }
        thread.name = "health"
        thread.start()
        started.wait()
    }

    /// Ends the probe after the request in progress, and returns what it saw.
    func stop() -> HealthTally {
        stopping.signal()
        ended.wait()
        return tally
    }

    /// One request: its milliseconds when the answer was a 200, read to its end within 5 s.
    private func probe() -> Double? {
        let started = monotonicNanoseconds()
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // Bounds each connect, send and receive; the whole exchange is bounded below too.
        var timeout = timeval(tv_sec: Self.timeoutSeconds, tv_usec: 0)
        let size = socklen_t(MemoryLayout<timeval>.size)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, size)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, size)
        var server = sockaddr_in()
        server.sin_family = sa_family_t(AF_INET)
        server.sin_port = in_port_t(UInt16(address.port).bigEndian)
        server.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &server) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        let sent = Self.request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == Self.request.count else { return nil }
        let deadline = started + Int64(Self.timeoutSeconds) * 1_000_000_000
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0, monotonicNanoseconds() < deadline else { return nil }
            if answer.count < 20 { answer += chunk[..<min(count, 20 - answer.count)] }
        }
        // As the Python probe read it: " 200 " within the status line's first bytes.
        let succeeded = answer.withUnsafeBytes { firstIndex(of: Array(" 200 ".utf8), in: $0) != nil }
        return succeeded ? Double(monotonicNanoseconds() - started) / 1e6 : nil
    }
}
