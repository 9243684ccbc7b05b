import Foundation
import FoundationModels
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Several OpenAI-compatible inference servers (other `sotto serve`, llama-server, vLLM…) as one
/// pool: each request goes to the healthy server with the fewest requests in flight (ties: the
/// one used least recently); a server that fails before it sent anything is marked down and the
/// request goes to the next; a server marked down is tried again after `retryAfter`, or as soon
/// as a health check (`GET <base>/models`) answers. The pool's state is ``status``.
///
/// A pool may also hold this server's own model (``init(endpoints:beside:named:retryAfter:)``):
/// it is one more member, chosen by the same rule — the requests in flight on it against those
/// on each server — so the local model serves while it is the least busy and the servers take
/// what it has no room for. It is never health-checked (it is in the process); a request it
/// fails as a server would (its model gone) marks it down like one.
///
/// The model of a pool is ``PooledModel``; sessions on it run like sessions on one server.
public final class InferencePool: Sendable {
    /// One server of the pool as the admin view shows it.
    public struct MemberStatus: Sendable, Equatable {
        /// The base URL without credentials; for this server's own model, "this server (name)".
        public var url: String
        public var up: Bool
        public var inFlight: Int
        /// Requests it answered, and those that failed on it.
        public var served: Int
        public var failed: Int
        /// Why it was last marked down ("" when it never was).
        public var lastError: String
    }

    /// Where a member's requests run.
    enum Target: Sendable {
        case server(OpenAICompatibleModel.Endpoint)
        /// This server's own model.
        case local(ModelBinding)
    }

    private struct Member {
        var label: String
        var downUntil: ContinuousClock.Instant?
        var inFlight = 0
        var served = 0
        var failed = 0
        var lastUsed = 0
        var lastError = ""
    }

    /// The servers (this server's own model, when the pool holds it, is not one).
    public let endpoints: [OpenAICompatibleModel.Endpoint]
    /// The name of this server's own model in the pool; nil when the pool holds none.
    public let localName: String?
    /// The members: the servers in order, then this server's own model (when held).
    private let targets: [Target]
    /// How long a failed server is left alone before requests try it again.
    public let retryAfter: Duration
    private let members: Mutex<(list: [Member], uses: Int)>
    private let checker = Mutex<Task<Void, Never>?>(nil)

    /// - Precondition: at least one endpoint.
    public convenience init(endpoints: [OpenAICompatibleModel.Endpoint], retryAfter: Duration = .seconds(15)) {
        self.init(endpoints: endpoints, local: nil, retryAfter: retryAfter)
    }

    /// The servers `endpoints` with this server's own `model` beside them (named `name`, as
    /// results show it).
    ///
    /// - Precondition: at least one endpoint.
    public convenience init(
        endpoints: [OpenAICompatibleModel.Endpoint], beside model: some LanguageModel, named name: String,
        retryAfter: Duration = .seconds(15)
    ) {
        self.init(endpoints: endpoints, local: (ModelBinding(model), name), retryAfter: retryAfter)
    }

    private init(
        endpoints: [OpenAICompatibleModel.Endpoint], local: (binding: ModelBinding, name: String)?,
        retryAfter: Duration
    ) {
        precondition(!endpoints.isEmpty, "a pool needs at least one server")
        self.endpoints = endpoints
        self.retryAfter = retryAfter
        localName = local?.name
        targets = endpoints.map { .server($0) } + (local.map { [.local($0.binding)] } ?? [])
        members = Mutex(
            (
                endpoints.map { Member(label: $0.displayURL) }
                    + (local.map { [Member(label: "this server (\($0.name))")] } ?? []), 0
            ))
    }

    deinit { checker.withLock { $0?.cancel() } }

    /// Where each server stands.
    public var status: [MemberStatus] {
        let now = ContinuousClock.now
        return members.withLock { state in
            state.list.map { member in
                MemberStatus(
                    url: member.label, up: member.downUntil.map { $0 <= now } ?? true,
                    inFlight: member.inFlight, served: member.served, failed: member.failed,
                    lastError: member.lastError)
            }
        }
    }

    /// Takes the server for the next request: among those not in `tried`, a healthy one with the
    /// fewest requests in flight; when every untried one is down, the one that went down first
    /// (a request is never refused while a server remains to try). Nil when all were tried.
    func take(excluding tried: Set<Int>) -> Int? {
        let now = ContinuousClock.now
        return members.withLock { state in
            let candidates = state.list.indices.filter { !tried.contains($0) }
            guard !candidates.isEmpty else { return nil }
            let healthy = candidates.filter { state.list[$0].downUntil.map { $0 <= now } ?? true }
            let chosen =
                healthy.min { a, b in
                    (state.list[a].inFlight, state.list[a].lastUsed) < (state.list[b].inFlight, state.list[b].lastUsed)
                }
                ?? candidates.min { (state.list[$0].downUntil ?? now) < (state.list[$1].downUntil ?? now) }!
            state.uses += 1
            state.list[chosen].inFlight += 1
            state.list[chosen].lastUsed = state.uses
            return chosen
        }
    }

    /// The request on server `index` ended: answered, or failed with `error` (nil: a failure
    /// that says nothing of the server, as a cancellation or a context too long).
    func finished(_ index: Int, ok: Bool, marking error: String?) {
        members.withLock { state in
            state.list[index].inFlight -= 1
            if ok {
                state.list[index].served += 1
                state.list[index].downUntil = nil
            } else {
                state.list[index].failed += 1
                if let error {
                    state.list[index].downUntil = .now + retryAfter
                    state.list[index].lastError = error
                }
            }
        }
    }

    /// Where member `index`'s requests run.
    func target(_ index: Int) -> Target { targets[index] }

    /// This server's own model, when the pool holds it.
    var local: ModelBinding? {
        guard case .local(let binding) = targets.last else { return nil }
        return binding
    }

    /// Asks every server for `GET <base>/models` at once: one that answers 2xx is up, one that
    /// does not (within `timeout`) is marked down. (This server's own model is not asked.)
    public func checkHealth(timeout: TimeInterval = 5) async {
        await withTaskGroup(of: (Int, String?).self) { group in
            for (index, endpoint) in endpoints.enumerated() {
                group.addTask {
                    var request = URLRequest(url: endpoint.baseURL.appendingPathComponent("models"))
                    request.timeoutInterval = timeout
                    if let key = endpoint.apiKey {
                        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
                    }
                    do {
                        let (_, response) = try await URLSession.shared.data(for: request)
                        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                        return (index, (200..<300).contains(status) ? nil : "the health check answered \(status)")
                    } catch {
                        return (index, "the health check got no answer")
                    }
                }
            }
            for await (index, error) in group {
                members.withLock { state in
                    if let error {
                        state.list[index].downUntil = .now + retryAfter
                        state.list[index].lastError = error
                    } else {
                        state.list[index].downUntil = nil
                    }
                }
            }
        }
    }

    /// Checks the servers' health every `interval` until the pool is released.
    public func startHealthChecks(every interval: Duration = .seconds(10)) {
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                await self?.checkHealth()
                try? await Task.sleep(for: interval)
            }
        }
        checker.withLock { previous in
            previous?.cancel()
            previous = task
        }
    }

    /// The pool as shown: "M on a pool of N servers", and "L here and M on a pool of N servers"
    /// with this server's own model L.
    public var name: String {
        let models = Set(endpoints.map(\.model)).sorted().joined(separator: ", ")
        let servers = "\(models) on a pool of \(endpoints.count) server\(endpoints.count == 1 ? "" : "s")"
        return localName.map { "\($0) here and \(servers)" } ?? servers
    }
}

/// The model of an ``InferencePool``: what the pool's servers can all do (guided generation and
/// tool calling, as one OpenAI-compatible server).
public struct PooledModel: LanguageModel {
    public typealias Executor = PooledExecutor

    /// Sessions share one executor per pool.
    public struct Key: Hashable, Sendable {
        let pool: InferencePool
        public static func == (a: Key, b: Key) -> Bool { a.pool === b.pool }
        public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(pool)) }
    }

    public let pool: InferencePool

    public init(pool: InferencePool) {
        self.pool = pool
    }

    public var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities(capabilities: [.guidedGeneration, .toolCalling])
    }

    public var executorConfiguration: Key { Key(pool: pool) }
}

/// Runs a ``PooledModel``'s requests on the pool's servers, moving a request to the next server
/// when one fails before it sent anything (after that, a retry would repeat what the session
/// already has: the error is the session's).
public struct PooledExecutor: LanguageModelExecutor {
    public typealias Model = PooledModel
    public typealias Configuration = PooledModel.Key

    public init(configuration: Configuration) {}

    /// Prewarms this server's own model, when the pool holds it (the servers prewarm their own).
    public func prewarm(model: PooledModel, transcript: Transcript) {
        guard let local = model.pool.local else { return }
        try? local.executor().prewarm(transcript)
    }

    nonisolated(nonsending) public func respond(
        to request: LanguageModelExecutorGenerationRequest, model: PooledModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        let pool = model.pool
        var tried: Set<Int> = []
        var lastError: (any Error)?
        while let index = pool.take(excluding: tried) {
            tried.insert(index)
            let target = pool.target(index)
            let inner = LanguageModelExecutorGenerationChannel()
            let work = Task {
                do {
                    switch target {
                    case .server(let endpoint):
                        try await OpenAICompatibleExecutor(configuration: endpoint).respond(
                            to: request, model: OpenAICompatibleModel(endpoint: endpoint), streamingInto: inner)
                    case .local(let binding):
                        try await binding.executor().respond(request, inner)
                    }
                    inner.finish()
                } catch {
                    inner.finish(throwing: error)
                }
            }
            var forwarded = 0
            do {
                try await withTaskCancellationHandler {
                    for try await event in inner {
                        forwarded += 1
                        await channel.send(event)
                    }
                } onCancel: {
                    work.cancel()
                }
                pool.finished(index, ok: true, marking: nil)
                return
            } catch {
                let says = Self.saysTheServerFailed(error)
                pool.finished(index, ok: false, marking: says ? "\(error)" : nil)
                guard says, forwarded == 0, !Task.isCancelled else { throw error }
                lastError = error
            }
        }
        throw lastError ?? CancellationError()
    }

    /// Whether an error says the server could not serve (no answer, 5xx, a bad key, rate
    /// limited), so another may; not a request the servers all refuse (a context too long) or a
    /// cancellation.
    static func saysTheServerFailed(_ error: any Error) -> Bool {
        guard let error = error as? LanguageModelSession.GenerationError else { return false }
        switch error {
        case .assetsUnavailable, .rateLimited: return true
        default: return false
        }
    }
}
