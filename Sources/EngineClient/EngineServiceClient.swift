import Foundation
import FoundationModels
import Synchronization

/// Runs system models in Sotto's engine service, over the Unix socket `$SOTTO_HOME/engine.sock`:
/// each request is one connection (JSON frames: the request out; the model's events, usage and
/// errors back). Cancelling a request sends `cancel` and waits for the service to stop (within a
/// token) so that the events it sent meanwhile still arrive; a client that goes away closes the
/// connection, which stops the request too.
///
/// The first request starts the service when none is running (``EngineLauncher``).
package final class EngineServiceClient: SystemModelEngine {
    private static let clients = Mutex<[String: EngineServiceClient]>([:])

    /// The client for the service of the data directory `home`.
    package static func shared(home: URL) -> EngineServiceClient {
        clients.withLock { clients in
            if let client = clients[home.path] { return client }
            let client = EngineServiceClient(home: home)
            clients[home.path] = client
            return client
        }
    }

    package let home: URL
    package let socketPath: String
    private let launcher: EngineLauncher
    private let known = Mutex(Known())

    private struct Known {
        var states: [SystemModelTarget: EngineModelState] = [:]
        var contextSizes: [SystemModelTarget: Int] = [:]
        var observers: [Int: @Sendable () -> Void] = [:]
        var nextObserver = 0
    }

    /// How long a started service has to begin listening (it takes milliseconds; a machine busy
    /// with builds can take many seconds to schedule a new process).
    static let startTimeout: Duration = .seconds(60)
    /// How long a cancelled request waits for the service to confirm before it hangs up.
    static let cancelGrace: Duration = .seconds(3)

    package init(home: URL, launcher: EngineLauncher? = nil) {
        self.home = home
        socketPath = home.appendingPathComponent("engine.sock").path
        self.launcher = launcher ?? EngineLauncher(home: home)
    }

    package var unreachableReason: String? {
        if UnixSocket.exists(at: socketPath) { return nil }
        if case .missing(let reason) = launcher.binary() { return reason }
        return nil
    }

    package func contextSize(of model: SystemModelTarget) -> Int? {
        known.withLock { $0.contextSizes[model] }
    }

    package func state(of model: SystemModelTarget) -> EngineModelState {
        known.withLock { $0.states[model] } ?? .notLoaded
    }

    package func observeStates(_ handler: @escaping @Sendable () -> Void) -> EngineObservation {
        let id = known.withLock { known in
            known.nextObserver += 1
            known.observers[known.nextObserver] = handler
            return known.nextObserver
        }
        return EngineObservation { [weak self] in
            _ = self?.known.withLock { $0.observers.removeValue(forKey: id) }
        }
    }

    // MARK: Requests

    package func respond(
        to request: LanguageModelExecutorGenerationRequest, model: SystemModelTarget,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        let message = EngineRequestMessage(kind: .respond, target: model, request: try WireRequest(request))
        let preference = currentTaskExecutorPreference()
        let connection = try await open()
        defer { connection.close() }
        try connection.send(message)
        let cancelled = Mutex(false)
        try await withTaskCancellationHandler {
            while let reply = try await connection.next() {
                switch reply.kind {
                case .info, .state:
                    learn(from: reply, about: model)
                case .event:
                    guard let event = try reply.event?.event() else { continue }
                    await channel.send(event)
                case .done:
                    if cancelled.withLock({ $0 }) { throw CancellationError() }
                    return
                case .failure:
                    throw reply.error?.error ?? CancellationError()
                case .tokenCount:
                    continue
                }
            }
            if cancelled.withLock({ $0 }) { throw CancellationError() }
            throw LanguageModelSession.GenerationError.assetsUnavailable(
                .init(debugDescription: "The engine service at \(socketPath) closed the connection during a request"))
        } onCancel: {
            cancelled.withLock { $0 = true }
            try? connection.send(EngineRequestMessage(kind: .cancel))
            // A service that does not answer the cancel within the grace period is hung up on.
            Task.detached(executorPreference: preference) {
                try? await Task.sleep(for: Self.cancelGrace)
                connection.close()
            }
        }
    }

    package func prewarm(model: SystemModelTarget, transcript: Transcript) {
        Task.detachedPreferringCurrentExecutor(priority: .utility) { [self] in
            guard let transcript = try? transcript.withImagesRead(), let connection = try? await open() else { return }
            defer { connection.close() }
            try? connection.send(EngineRequestMessage(kind: .prewarm, target: model, transcript: transcript))
            while let reply = try? await connection.next() {
                learn(from: reply, about: model)
                if reply.kind == .done || reply.kind == .failure { return }
            }
        }
    }

    package func tokenCount(_ subject: TokenCountSubject, model: SystemModelTarget) async throws -> Int {
        let message = EngineRequestMessage(
            kind: .tokenCount, target: model, subject: try WireTokenCountSubject(subject))
        let connection = try await open()
        defer { connection.close() }
        try connection.send(message)
        while let reply = try await connection.next() {
            learn(from: reply, about: model)
            switch reply.kind {
            case .tokenCount: return reply.count ?? 0
            case .failure: throw reply.error?.error ?? CancellationError()
            default: continue
            }
        }
        throw LanguageModelSession.GenerationError.assetsUnavailable(
            .init(debugDescription: "The engine service at \(socketPath) closed the connection before answering"))
    }

    // MARK: Connecting

    /// A connection to the service, starting it when none is listening.
    private func open() async throws -> EngineConnection {
        do {
            return EngineConnection(socket: try UnixSocket.connect(to: socketPath))
        } catch let error where error.isNotListening {
            try launcher.launch()
        } catch {
            throw LanguageModelSession.GenerationError.assetsUnavailable(
                .init(debugDescription: "The engine service cannot be reached: \(error)"))
        }
        let deadline = ContinuousClock.now + Self.startTimeout
        var lastError: UnixSocketError?
        while true {
            do {
                return EngineConnection(socket: try UnixSocket.connect(to: socketPath))
            } catch {
                lastError = error
            }
            // Checked after an attempt, so that a task that was not scheduled until past the
            // deadline still tries once more before it gives up.
            guard ContinuousClock.now < deadline else { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        let log = home.appendingPathComponent("engine.log")
        let tail = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").suffix(5)
            .joined(separator: "\n")
        throw LanguageModelSession.GenerationError.assetsUnavailable(
            .init(
                debugDescription:
                    "The engine service was started but is not listening at \(socketPath) after \(Self.startTimeout)"
                    + " (\(lastError.map { "\($0)" } ?? "no error"))" + (tail.map { "; \(log.path) ends: \($0)" } ?? "")
            ))
    }

    /// Keeps what a reply says about a model, and tells observers when its state changed.
    private func learn(from reply: EngineReplyMessage, about model: SystemModelTarget) {
        let observers = known.withLock { known -> [@Sendable () -> Void] in
            if let size = reply.contextSize { known.contextSizes[model] = size }
            guard let state = reply.state, known.states[model] != state else { return [] }
            known.states[model] = state
            return Array(known.observers.values)
        }
        observers.forEach { $0() }
    }
}
