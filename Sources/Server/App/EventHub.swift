import ChatStore
import Foundation
import HTTPCore
import JSONSyntax

/// The `/api/connect` WebSocket: authenticates sockets, replays missed events, and pushes each
/// user's event log to their open sockets as it grows.
///
/// Protocol (JSON text messages):
/// - connect with `?token=<jwt>` (or send `{"type":"auth","token":…}` first), optionally
///   `&since=<seq>` (last seq seen) and `&suggestions=off`;
/// - the server answers `{"type":"hello","connection_id","user_id","last_seq"}`, then either
///   the events after `since` or `{"type":"resync","last_seq"}` when they are gone, then live
///   events, each with `seq` (the server's event log numbers every event once, so a user's
///   seqs increase with gaps: events of channels they are not in);
/// - clients may send `{"type":"ping"}` (→ `pong`) and `{"type":"typing.start"|"typing.stop","cid"}`.
final class EventHub: WebSocketResponder, @unchecked Sendable {
    // @unchecked Sendable: `sessions`, `sessionsBySocket` and `waiting` are only touched inside
    // `lock`; `typingHandler` is set once, before the server starts.

    /// How long an unauthenticated socket may wait before sending `auth`; then it is closed,
    /// TCP connection included.
    static let authTimeout: DispatchTimeInterval = .seconds(5)

    private let store: ChatStore
    private let tokens: TokenAuthority
    private let lock = NSLock()
    private var sessions: [UserID: [Int: Session]] = [:]
    /// Socket id → its session, for messages and closes.
    private var sessionsBySocket: [Int: Session] = [:]
    private var waiting: [Int: WebSocket] = [:]
    /// Handles client typing messages; set by the server once the API exists.
    var typingHandler: (@Sendable (UserID, ChannelID, Bool) throws -> Void)?
    private let cors: CORSPolicy
    private let limiter: RateLimiter
    /// Open sockets one user may have; more are refused (HTTP 429, or closed with 4429 when
    /// the token comes in a message). The per-address cap of the HTTP core is the looser bound:
    /// many users behind one reverse proxy share an address.
    let maxSocketsPerUser: Int

    /// The default of ``maxSocketsPerUser``: a few browser tabs and devices each.
    static let defaultMaxSocketsPerUser = 16

    init(
        store: ChatStore, tokens: TokenAuthority, cors: CORSPolicy, limiter: RateLimiter,
        maxSocketsPerUser: Int = EventHub.defaultMaxSocketsPerUser
    ) {
        self.store = store
        self.tokens = tokens
        self.cors = cors
        self.limiter = limiter
        self.maxSocketsPerUser = maxSocketsPerUser
    }

    /// Sends a just-appended event to its recipients' sockets straight from memory; a socket
    /// that is behind (it missed an earlier event) reads its log instead.
    func deliver(_ event: AppendedEvent) {
        var targets: [(Session, Int64?)] = []
        targets.reserveCapacity(event.recipients.count)
        withLock {
            for recipient in event.recipients {
                guard let open = sessions[recipient.user] else { continue }
                for session in open.values { targets.append((session, recipient.previous)) }
            }
        }
        guard !targets.isEmpty else { return }  // nobody connected: no frame to build
        let frame = WebSocketFrame.Text(event.json)  // the same bytes for every recipient
        for (session, previous) in targets { session.offer(seq: event.seq, after: previous, frame: frame) }
    }

    /// Sends `json` to every open socket of `user` now, outside the event log: no `seq`, never
    /// stored or replayed. For progress that is stale as soon as the next one comes (streaming
    /// chips, model jobs); what must not be missed goes through the log or a GET.
    /// `suggestions`: only to sockets that did not turn suggestions off.
    func sendLive(to user: UserID, json: String, suggestions: Bool = false) {
        let targets = withLock { sessions[user].map { Array($0.values) } ?? [] }
        for session in targets where !suggestions || session.wantsSuggestions { session.sendLive(json) }
    }

    func isConnected(_ user: UserID) -> Bool {
        withLock { !(sessions[user]?.isEmpty ?? true) }
    }

    /// True when the user has a socket that did not turn suggestions off.
    func wantsSuggestions(_ user: UserID) -> Bool {
        withLock { sessions[user]?.values.contains { $0.wantsSuggestions } ?? false }
    }

    /// Open sockets (for stats and tests).
    var connectionCount: Int { withLock { sessions.values.reduce(0) { $0 + $1.count } } }

    // MARK: WebSocketResponder

    func shouldAccept(_ request: HTTPRequest) -> HTTPResponse? {
        // A browser always sends Origin: a page elsewhere must not ride on the user's session.
        if let origin = request.header("Origin"), !Self.isSameOrigin(origin, host: request.header("Host")),
            !cors.allows(origin)
        {
            return APIError(
                status: 403, code: "origin_not_allowed",
                message: "WebSocket from origin '\(origin.prefix(100))' refused"
            ).response
        }
        guard let query = request.validatedQuery else {
            return APIError.badRequest("the query string is not valid percent-encoded UTF-8").response
        }
        if let since = query["since"], Int64(since).map({ $0 >= 0 }) != true {
            return APIError.badRequest("since must be a non-negative integer").response
        }
        guard let token = query["token"] ?? bearer(request) else { return nil }  // may authenticate by message
        do {
            let claims = try tokens.verify(token)
            if socketCount(of: claims.user) >= maxSocketsPerUser {
                return tooManySockets(claims.user).response
            }
            return nil
        } catch {
            return APIError(error).response
        }
    }

    /// Open sockets of `user`.
    func socketCount(of user: UserID) -> Int {
        withLock { sessions[user]?.count ?? 0 }
    }

    private func tooManySockets(_ user: UserID) -> APIError {
        APIError(
            status: 429, code: "too_many_sockets",
            message:
                "user '\(user)' already has \(maxSocketsPerUser) open sockets, the most this server allows; close one (another tab or device) first",
            retryAfter: 5)
    }

    /// Closes every socket whose token the access list now refuses (a revoked token, a
    /// disabled user), with 4401.
    func closeRefusedSockets() {
        let open = withLock { Array(sessionsBySocket.values) }
        for session in open {
            if let refusal = tokens.access.refusal(for: session.claims) {
                fail(session.socket, APIError(refusal), closeCode: 4401)
            }
        }
    }

    /// Whether `origin` is this server as the client reached it (`http(s)://` + Host).
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, !host.isEmpty else { return false }
        let lower = origin.lowercased()
        let hostLower = host.lowercased()
        return lower == "http://" + hostLower || lower == "https://" + hostLower
    }

    func opened(_ socket: WebSocket) {
        let query = socket.request.query
        if let token = query["token"] ?? bearer(socket.request) {
            start(socket, token: token, since: query["since"].flatMap { Int64($0) })
            return
        }
        withLock { waiting[socket.id] = socket }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.authTimeout) { [weak self, weak socket] in
            guard let self, let socket, self.withLock({ self.waiting.removeValue(forKey: socket.id) }) != nil else {
                return
            }
            self.fail(socket, APIError(AuthError.missing), closeCode: 4401)
        }
    }

    func received(text: String, on socket: WebSocket) {
        guard let data = text.data(using: .utf8),
            let message = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let type = message["type"] as? String
        else {
            send(socket, error: APIError.badRequest("send JSON objects with a \"type\"", code: "malformed_json"))
            return
        }
        if withLock({ waiting[socket.id] != nil }) {
            guard type == "auth", let token = message["token"] as? String else {
                fail(socket, APIError(AuthError.missing), closeCode: 4401)
                return
            }
            withLock { _ = waiting.removeValue(forKey: socket.id) }
            let since =
                (message["since"] as? NSNumber)?.int64Value ?? (message["since"] as? String).flatMap { Int64($0) }
            start(socket, token: token, since: since)
            return
        }
        guard let session = session(for: socket) else { return }
        if type != "ping", let wait = limiter.take(session.user) {
            send(
                socket,
                error: APIError(status: 429, code: "rate_limited", message: "too many messages; retry in \(wait) s"))
            return
        }
        switch type {
        case "ping":
            socket.send(#"{"type":"pong"}"#)
        case "typing.start", "typing.stop":
            do {
                guard let text = message["cid"] as? String else { throw APIError.badRequest("typing needs a \"cid\"") }
                try typingHandler?(session.user, try ChannelID.parse(text), type == "typing.start")
            } catch {
                send(socket, error: APIError(error))
            }
        case "auth":
            send(socket, error: APIError.badRequest("already authenticated"))
        default:
            send(socket, error: APIError.badRequest("unknown message type '\(type.prefix(40))'"))
        }
    }

    func closed(_ socket: WebSocket) {
        withLock {
            waiting[socket.id] = nil
            guard let session = sessionsBySocket.removeValue(forKey: socket.id) else { return }
            sessions[session.user]?[socket.id] = nil
            if sessions[session.user]?.isEmpty == true { sessions[session.user] = nil }
        }
    }

    // MARK: Sessions

    private func start(_ socket: WebSocket, token: String, since: Int64?) {
        let claims: TokenClaims
        let cursor: EventCursor
        do {
            claims = try tokens.verify(token)
            try store.ensureUserExists(claims.user)
            cursor = try store.eventCursor()
        } catch {
            fail(socket, APIError(error), closeCode: APIError(error).status == 401 ? 4401 : 1011)
            return
        }
        let resumeFrom: Int64
        var resync = false
        if let since {
            if cursor.canResume(since: since) {
                resumeFrom = since
            } else {
                resumeFrom = cursor.lastSeq
                resync = true
            }
        } else {
            resumeFrom = cursor.lastSeq
        }
        let wantsSuggestions = socket.request.query["suggestions"] != "off"
        let session = Session(
            claims: claims, socket: socket, store: store, lastSent: resumeFrom, wantsSuggestions: wantsSuggestions)
        // Counted and registered at once, so that sockets opening together cannot all pass.
        let admitted = withLock {
            guard (sessions[claims.user]?.count ?? 0) < maxSocketsPerUser else { return false }
            sessions[claims.user, default: [:]][socket.id] = session
            sessionsBySocket[socket.id] = session
            return true
        }
        guard admitted else {
            fail(socket, tooManySockets(claims.user), closeCode: 4429)
            return
        }
        socket.send(
            #"{"type":"hello","connection_id":"\#(socket.id)","user_id":\#(JSONStringLiteral.encode(claims.user.rawValue)),"last_seq":\#(cursor.lastSeq)}"#
        )
        if resync { socket.send(#"{"type":"resync","last_seq":\#(cursor.lastSeq)}"#) }
        session.schedulePump()  // replay, and anything that arrived while registering
        if let expiresAt = claims.expiresAt {
            // HTTP refuses the token from then on; the socket must not outlive it either.
            let delay = max(0, Double(expiresAt) - Date().timeIntervalSince1970)
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self, weak socket] in
                guard let self, let socket, self.session(for: socket) != nil else { return }
                self.fail(socket, APIError(AuthError.expired), closeCode: 4401)
            }
        }
    }

    private func session(for socket: WebSocket) -> Session? {
        withLock { sessionsBySocket[socket.id] }
    }

    private func send(_ socket: WebSocket, error: APIError) {
        struct Frame: Encodable {
            var type = "error"
            var error: Inner
            struct Inner: Encodable {
                var status: Int
                var code: String
                var message: String
            }
        }
        let frame = Frame(error: .init(status: error.status, code: error.code, message: error.message))
        if let bytes = try? JSONBody.encode(frame) { socket.send(String(decoding: bytes, as: UTF8.self)) }
    }

    private func fail(_ socket: WebSocket, _ error: APIError, closeCode: UInt16) {
        send(socket, error: error)
        socket.close(code: closeCode, reason: error.code)
    }

    private func bearer(_ request: HTTPRequest) -> String? {
        guard let header = request.header("Authorization"), header.lowercased().hasPrefix("bearer ") else { return nil }
        return String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }

    private func withLock<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}

/// One authenticated socket and how far its user's log has been sent on it.
///
/// Events reach it two ways: `offer` hands over one just committed (sent at once when the
/// event before it in the user's log has been sent), and `schedulePump` reads the log after
/// `lastSent` (on connect, or when an earlier event has not been sent). Both send under `lock`,
/// and only events after `lastSent`, so nothing is sent twice or out of order.
final class Session: @unchecked Sendable {
    // @unchecked Sendable: `lastSent` and `scheduled` are only touched inside `lock`; pumps
    // run one at a time on `queue`.

    let claims: TokenClaims
    var user: UserID { claims.user }
    let socket: WebSocket
    let wantsSuggestions: Bool
    private let store: ChatStore
    private let queue: DispatchQueue
    private var lastSent: Int64
    private let lock = NSLock()
    private var scheduled = false

    init(claims: TokenClaims, socket: WebSocket, store: ChatStore, lastSent: Int64, wantsSuggestions: Bool) {
        self.claims = claims
        self.socket = socket
        self.store = store
        self.lastSent = lastSent
        self.wantsSuggestions = wantsSuggestions
        self.queue = DispatchQueue(label: "sotto.session.\(socket.id)")
    }

    /// The event with sequence number `seq` was just appended to this user's log, where
    /// `previous` (when known) came before it.
    func offer(seq: Int64, after previous: Int64?, frame: WebSocketFrame.Text) {
        lock.lock()
        if let previous, previous <= lastSent, seq > lastSent {
            if socket.send(frame) { lastSent = seq }
            lock.unlock()
            return
        }
        let behind = seq > lastSent
        lock.unlock()
        if behind { schedulePump() }  // an earlier event has not arrived yet: read the log
    }

    /// Sends a frame that is not part of the log, under the same lock as the log's events, so
    /// a frame never lands inside a replay it belongs after.
    func sendLive(_ json: String) {
        lock.lock()
        defer { lock.unlock() }
        // A client that is behind on reading gets the next update instead.
        guard socket.unsentBytes <= socket.maxQueuedBytes / 2 else { return }
        _ = socket.send(json)
    }

    /// Sends whatever is in the log after `lastSent`; calls made while a pump is queued fold
    /// into it.
    func schedulePump() {
        lock.lock()
        let alreadyScheduled = scheduled
        scheduled = true
        lock.unlock()
        guard !alreadyScheduled else { return }
        queue.async { self.pump() }
    }

    private func pump() {
        lock.lock()
        scheduled = false
        var from = lastSent
        lock.unlock()
        while socket.isOpen {
            let events: [StoredEvent]
            do {
                events = try store.events(for: user, after: from, limit: 200)
            } catch {
                // The database is busy or failing: try again shortly rather than drop events.
                queue.asyncAfter(deadline: .now() + .milliseconds(200)) { self.pump() }
                return
            }
            lock.lock()
            var paused = false
            for event in events where event.seq > lastSent {
                // A replay waits for the client to read rather than overrun its send buffer
                // (which drops the socket); live events to a client that stopped reading do not.
                if socket.unsentBytes > socket.maxQueuedBytes / 2 {
                    paused = true
                    break
                }
                guard socket.send(event.json) else {
                    lock.unlock()
                    return
                }
                lastSent = event.seq
            }
            from = lastSent
            lock.unlock()
            if paused {
                queue.asyncAfter(deadline: .now() + .milliseconds(10)) { self.pump() }
                return
            }
            if events.count < 200 { return }
        }
    }
}
