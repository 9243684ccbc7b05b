import EngineClient
import Executors
import Foundation
import FoundationModels
import LocalEngine
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The engine service (`sotto engine`): Sotto's engine, loaded once per model, for every app of
/// a user, as Apple's framework talks to a system service. It listens on a Unix socket in the
/// data directory (owner-only: the socket is mode 0600 in a 0700 directory, and a connection
/// from another user is refused), one request per connection, in the framed JSON of
/// ``EngineRequestMessage`` / ``EngineReplyMessage``.
///
/// A request's events are written as the engine produces them; a `cancel` message, or the
/// client closing the connection, stops the request at the next token (its last events and
/// the cancellation are still written, for a client that is still reading).
///
/// One service per data directory: it holds `engine.lock` while it runs, so a second one
/// started at the same time (two apps starting it at once) exits at once.
package final class EngineServer: Sendable {
    /// Where the requests run. Each connection's request is a task started from the connection's
    /// reader thread, which has no task executor to hand on; without one it would run on Swift's
    /// cooperative pool, where anything blocked elsewhere in the process could hold it up. The
    /// requests mostly wait for the engine (generation runs on its own threads), so they share
    /// one thread.
    static let requestExecutor = ThreadExecutor(name: "sotto.engine-requests")

    /// Why the service did not start.
    package enum StartError: Error, CustomStringConvertible {
        /// Another service already runs for this data directory.
        case alreadyRunning(String)
        case cannotStart(String)

        package var description: String {
            switch self {
            case .alreadyRunning(let detail), .cannotStart(let detail): detail
            }
        }
    }

    package let socketPath: String
    private let lockPath: String
    private let pidPath: String
    private let engine: LocalEngineHost
    private let idleExit: Duration?
    private let activity = Mutex((connections: 0, lastActive: ContinuousClock.now))
    /// Where the idle check runs (a timer, not a poll).
    private let idleQueue = DispatchQueue(label: "sotto.engine-idle")
    private let listener: Mutex<UnixSocket?> = Mutex(nil)
    private let lockDescriptor = Mutex<Int32>(-1)

    /// A service for the data directory `home`, running requests on `engine`; with `idleExit`,
    /// it stops after that long without connections.
    package init(home: URL, socketPath: String? = nil, engine: LocalEngineHost, idleExit: Duration? = nil) {
        self.socketPath = socketPath ?? home.appendingPathComponent("engine.sock").path
        lockPath = self.socketPath + ".lock"
        pidPath = self.socketPath + ".pid"
        self.engine = engine
        self.idleExit = idleExit
    }

    /// Takes the data directory's lock and starts listening; requests are served on threads of
    /// their own from then on.
    ///
    /// - Throws: ``StartError/alreadyRunning(_:)`` when another service holds the lock.
    package func start() throws {
        let lock = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard lock >= 0 else {
            throw StartError.cannotStart("cannot open \(lockPath): \(String(cString: strerror(errno)))")
        }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            close(lock)
            throw StartError.alreadyRunning("an engine service already runs for \(socketPath)")
        }
        lockDescriptor.withLock { $0 = lock }
        // A socket left by a service that died is taken over (the lock says none runs).
        if UnixSocket.exists(at: socketPath) { unlink(socketPath) }
        let socket: UnixSocket
        do {
            socket = try UnixSocket.listen(at: socketPath)
        } catch {
            throw StartError.cannotStart("\(error)")
        }
        listener.withLock { $0 = socket }
        try? "\(getpid())\n".write(toFile: pidPath, atomically: true, encoding: .utf8)
        let thread = Thread { [self] in acceptLoop(socket) }
        thread.name = "sotto.engine-accept"
        thread.start()
        if let idleExit { checkIdleness(after: idleExit) }
    }

    /// Stops listening and removes the socket, lock and pid files.
    package func stop() {
        guard let socket = listener.withLock({ $0 }) else { return }
        listener.withLock { $0 = nil }
        unlink(socketPath)
        unlink(pidPath)
        socket.shutdown()
        let lock = lockDescriptor.withLock { $0 }
        if lock >= 0 { close(lock) }
    }

    private func acceptLoop(_ socket: UnixSocket) {
        while true {
            guard let client = try? socket.accept() else { return }
            guard client.peerUserID == getuid() else { continue }  // released: closed
            activity.withLock { $0.connections += 1 }
            let connection = ServiceConnection(socket: client, engine: engine) { [self] in
                let idle = activity.withLock { activity in
                    activity.connections -= 1
                    activity.lastActive = .now
                    return activity.connections == 0
                }
                if idle, let idleExit { checkIdleness(after: idleExit) }
            }
            connection.start()
        }
    }

    /// Checks, `delay` from now, whether the service has been without connections for its idle
    /// limit: then it stops; while it is idle but not yet for that long, it checks again when
    /// the limit will have passed. The check is scheduled when the last connection closes (and
    /// at start), so an idle service does not wake up in between.
    private func checkIdleness(after delay: Duration) {
        guard let limit = idleExit else { return }
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        idleQueue.asyncAfter(deadline: .now() + seconds) { [self] in
            let remaining = activity.withLock { activity -> Duration? in
                guard activity.connections == 0 else { return nil }
                return limit - (ContinuousClock.now - activity.lastActive)
            }
            guard let remaining else { return }  // busy: the last connection to close checks again
            guard remaining <= .zero else { return checkIdleness(after: remaining) }
            FileHandle.standardOutput.write(Data("engine: idle for \(limit); stopping\n".utf8))
            stop()
            exit(0)
        }
    }
}

/// One client connection: reads its request (and a later `cancel`), runs it, writes replies.
private final class ServiceConnection: Sendable {
    private let socket: UnixSocket
    private let engine: LocalEngineHost
    private let onClose: @Sendable () -> Void
    private let writeLock = Mutex(())
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(socket: UnixSocket, engine: LocalEngineHost, onClose: @escaping @Sendable () -> Void) {
        self.socket = socket
        self.engine = engine
        self.onClose = onClose
    }

    func start() {
        let thread = Thread { [self] in readLoop() }
        thread.name = "sotto.engine-connection"
        thread.start()
    }

    /// Reads frames until the client hangs up; the first is the request, a later `cancel`
    /// (or the end) cancels it.
    private func readLoop() {
        var decoder = EngineFrames.Decoder()
        let json = JSONDecoder()
        var started = false
        readFrames: while true {
            guard let bytes = try? socket.read(), !bytes.isEmpty, let frames = try? decoder.feed(bytes) else { break }
            for frame in frames {
                guard let message = try? json.decode(EngineRequestMessage.self, from: frame) else {
                    write(EngineReplyMessage(kind: .failure, error: WireError(EngineProtocolError.unreadable)))
                    break readFrames
                }
                if message.kind == .cancel {
                    task.withLock { $0 }?.cancel()
                } else if !started {
                    started = true
                    let work = Task(executorPreference: EngineServer.requestExecutor) { [self] in await serve(message) }
                    task.withLock { $0 = work }
                }
            }
        }
        // The client went away (or sent nonsense): whatever it asked for stops.
        task.withLock { $0 }?.cancel()
        onClose()
    }

    private func serve(_ message: EngineRequestMessage) async {
        guard message.version == EngineRequestMessage.currentVersion else {
            write(EngineReplyMessage(kind: .failure, error: WireError(EngineProtocolError.version(message.version))))
            return socket.shutdown()
        }
        guard let target = message.target else {
            write(EngineReplyMessage(kind: .failure, error: WireError(EngineProtocolError.missing("target"))))
            return socket.shutdown()
        }
        sendInfo(target)
        do {
            switch message.kind {
            case .respond:
                guard let request = try message.request?.request() else { throw EngineProtocolError.missing("request") }
                try await respond(to: request, target: target)
                write(EngineReplyMessage(kind: .done))
            case .prewarm:
                engine.prewarm(model: target, transcript: message.transcript ?? Transcript())
                // Answered once the model has loaded (or failed), so the client learns which.
                _ = try? await engine.runtime(for: target)
                write(EngineReplyMessage(kind: .state, state: engine.state(of: target)))
                write(EngineReplyMessage(kind: .done))
            case .tokenCount:
                guard let subject = try message.subject?.subject() else { throw EngineProtocolError.missing("subject") }
                let count = try await engine.tokenCount(subject, model: target)
                write(EngineReplyMessage(kind: .tokenCount, count: count))
            case .cancel:
                break
            }
        } catch {
            write(EngineReplyMessage(kind: .state, state: engine.state(of: target)))
            write(EngineReplyMessage(kind: .failure, error: WireError(error)))
        }
        socket.shutdown()
    }

    /// Runs the request, writing its events as they come; the model's load state is written
    /// when it changes meanwhile.
    private func respond(to request: LanguageModelExecutorGenerationRequest, target: SystemModelTarget) async throws {
        let engine = self.engine
        let observation = engine.observeStates { [self] in
            write(EngineReplyMessage(kind: .state, state: engine.state(of: target)))
        }
        defer { withExtendedLifetime(observation) {} }
        let channel = LanguageModelExecutorGenerationChannel()
        let generation = Task.preferringCurrentExecutor {
            do {
                try await engine.respond(to: request, model: target, streamingInto: channel)
                channel.finish()
            } catch {
                channel.finish(throwing: error)
            }
        }
        let forward = { [self] (event: LanguageModelExecutorGenerationChannel.Event) in
            if let wire = WireEvent(event) { write(EngineReplyMessage(kind: .event, event: wire)) }
        }
        var iterator = channel.makeAsyncIterator()
        do {
            while let event = try await iterator.next() { forward(event) }
        } catch is CancellationError {
            // The engine stops within a token; its last events (the usage) still go out.
            generation.cancel()
            _ = await generation.value
            channel.drain().forEach(forward)
            throw CancellationError()
        }
    }

    private func sendInfo(_ target: SystemModelTarget) {
        write(
            EngineReplyMessage(
                kind: .info, contextSize: engine.contextSize(of: target), state: engine.state(of: target)))
    }

    private func write(_ reply: EngineReplyMessage) {
        guard let payload = try? JSONEncoder().encode(reply) else { return }
        writeLock.withLock { _ in try? socket.write(EngineFrames.frame(payload)) }
    }
}

/// A request the service cannot take.
enum EngineProtocolError: Error, CustomStringConvertible {
    case unreadable
    case version(Int)
    case missing(String)

    var description: String {
        switch self {
        case .unreadable: "the request is not a readable engine message"
        case .version(let version):
            "the client speaks engine protocol \(version); this service speaks \(EngineRequestMessage.currentVersion)"
        case .missing(let field): "the request has no \(field)"
        }
    }
}
