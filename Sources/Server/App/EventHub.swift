import ChatStore
import Foundation
import HTTPCore
import JSONSyntax
import ServerKit
import Synchronization

/// The `/api/connect` WebSocket: authenticates sockets, replays missed events, and pushes each
/// user's event log to their open sockets as it grows.
///
/// Protocol (JSON text messages):
/// - connect with `?token=<jwt>` (or send `{"type":"auth","token":…}` first; a page on its cookie
///   session sends `"token": null`, and the upgrade's cookie is used), optionally
///   `&since=<seq>` (last seq seen) and `&suggestions=off`;
/// - the server answers `{"type":"hello","connection_id","user_id","last_seq"}`, then either
///   the events after `since` or `{"type":"resync","last_seq"}` when they are gone, then live
///   events, each with `seq` (the server's event log numbers every event once, so a user's
///   seqs increase with gaps: events of channels they are not in);
/// - clients may send `{"type":"ping"}` (→ `pong`) and `{"type":"typing.start"|"typing.stop","cid"}`.
final class EventHub: WebSocketResponder, LiveFrames, @unchecked Sendable {
    // @unchecked Sendable: `typingHandler` and `messageFromAnotherServer` are set once, before
    // the server starts; the rest is
    // immutable or a Mutex.

    /// How long an unauthenticated socket may wait before sending `auth`; then it is closed,
    /// TCP connection included.
    static let authTimeout: Duration = .seconds(5)

    private let store: ChatStore
    private let tokens: TokenAuthority
    /// The open sockets.
    private struct Registry {
        var sessions: [UserID: [Int: Session]] = [:]
        /// Socket id → its session, for messages and closes.
        var sessionsBySocket: [Int: Session] = [:]
        /// Sockets that have not authenticated yet.
        var waiting: [Int: WebSocket] = [:]
    }
    private let registry = Mutex(Registry())
    /// Handles client typing messages; set by the server once the API exists.
    var typingHandler: (@Sendable (UserID, ChannelID, Bool) async throws -> Void)?
    /// Called with a message another server sharing the database stored, created, edited or
    /// deleted, and its channel's members; set by the server once the API exists.
    var messageFromAnotherServer: (@Sendable (Message, [UserID]) async -> Void)?
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
        registry.withLock { registry in
            for recipient in event.recipients {
                guard let open = registry.sessions[recipient.user] else { continue }
                for session in open.values { targets.append((session, recipient.previous)) }
            }
        }
        if event.fromAnotherServer, !targets.isEmpty, let handler = messageFromAnotherServer,
            [EventType.messageNew, EventType.messageUpdated, EventType.messageDeleted].contains(event.type),
            let id = Self.messageID(in: event.json)
        {
            let store = store
            Task {
                guard let message = try? await store.message(id) else { return }
                await handler(message, event.recipients.map(\.user))
            }
        }
        guard !targets.isEmpty else { return }  // nobody connected: no frame to build
        let frame = WebSocketFrame.Text(event.json)  // the same bytes for every recipient
        for (session, previous) in targets { session.offer(seq: event.seq, after: previous, frame: frame) }
    }

    /// The id of the message a `message.*` event carries.
    static func messageID(in json: String) -> MessageID? {
        struct Event: Decodable {
            struct Message: Decodable { var id: String }
            var message: Message?
        }
        return (try? JSONDecoder().decode(Event.self, from: Data(json.utf8)))?.message.map {
            MessageID(rawValue: $0.id)
        }
    }

    /// Sends `json` to every open socket of `user` now, outside the event log: no `seq`, never
    /// stored or replayed. For progress that is stale as soon as the next one comes (streaming
    /// chips, model jobs); what must not be missed goes through the log or a GET.
    /// `suggestions`: only to sockets that did not turn suggestions off.
    func sendLive(to user: UserID, json: String, suggestions: Bool = false) {
        let targets = registry.withLock { $0.sessions[user].map { Array($0.values) } ?? [] }
        for session in targets where !suggestions || session.wantsSuggestions { session.sendLive(json) }
    }

    func isConnected(_ user: UserID) -> Bool {
        registry.withLock { !($0.sessions[user]?.isEmpty ?? true) }
    }

    /// True when the user has a socket that did not turn suggestions off.
    func wantsSuggestions(_ user: UserID) -> Bool {
        registry.withLock { $0.sessions[user]?.values.contains { $0.wantsSuggestions } ?? false }
    }

    /// Open sockets (for stats and tests).
    var connectionCount: Int { registry.withLock { $0.sessions.values.reduce(0) { $0 + $1.count } } }

    // MARK: WebSocketResponder

    func shouldAccept(_ request: HTTPRequest) -> HTTPResponse? {
        // A browser always sends Origin: a page elsewhere must not ride on the user's session.
        if let origin = request.header("Origin"), !SessionCookie.isSameOrigin(origin, host: request.header("Host")),
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
        registry.withLock { $0.sessions[user]?.count ?? 0 }
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
        let open = registry.withLock { Array($0.sessionsBySocket.values) }
        for session in open {
            if let refusal = tokens.access.refusal(for: session.claims) {
                fail(session.socket, APIError(refusal), closeCode: 4401)
            }
        }
    }

    /// The session cookie of an upgrade request from this server's own pages (or one without an
    /// Origin, which is no browser's).
    static func cookieToken(_ request: HTTPRequest) -> String? {
        if let origin = request.header("Origin"), !SessionCookie.isSameOrigin(origin, host: request.header("Host")) {
            return nil
        }
        return SessionCookie.token(in: request)
    }

    func opened(_ socket: WebSocket) async {
        let query = socket.request.query
        if let token = query["token"] ?? bearer(socket.request) {
            await start(socket, token: token, since: query["since"].flatMap { Int64($0) })
            return
        }
        registry.withLock { $0.waiting[socket.id] = socket }
        Task { [weak self, weak socket] in
            try? await Task.sleep(for: Self.authTimeout)
            guard let self, let socket, self.registry.withLock({ $0.waiting.removeValue(forKey: socket.id) }) != nil
            else { return }
            self.fail(socket, APIError(AuthError.missing), closeCode: 4401)
        }
    }

    func received(text: String, on socket: WebSocket) async {
        guard let data = text.data(using: .utf8),
            let message = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let type = message["type"] as? String
        else {
            send(socket, error: APIError.badRequest("send JSON objects with a \"type\"", code: "malformed_json"))
            return
        }
        if registry.withLock({ $0.waiting[socket.id] != nil }) {
            // A browser on a cookie session sends `"token": null`: the upgrade request's cookie
            // is the session (SameSite keeps it off other sites' sockets; the Origin was checked).
            guard type == "auth", let token = message["token"] as? String ?? Self.cookieToken(socket.request) else {
                fail(socket, APIError(AuthError.missing), closeCode: 4401)
                return
            }
            registry.withLock { _ = $0.waiting.removeValue(forKey: socket.id) }
            let since =
                (message["since"] as? NSNumber)?.int64Value ?? (message["since"] as? String).flatMap { Int64($0) }
            await start(socket, token: token, since: since)
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
                try await typingHandler?(session.user, try ChannelID.parse(text), type == "typing.start")
            } catch {
                send(socket, error: APIError(error))
            }
        case "auth":
            send(socket, error: APIError.badRequest("already authenticated"))
        default:
            send(socket, error: APIError.badRequest("unknown message type '\(type.prefix(40))'"))
        }
    }

    func closed(_ socket: WebSocket) async {
        registry.withLock { registry in
            registry.waiting[socket.id] = nil
            guard let session = registry.sessionsBySocket.removeValue(forKey: socket.id) else { return }
            registry.sessions[session.user]?[socket.id] = nil
            if registry.sessions[session.user]?.isEmpty == true { registry.sessions[session.user] = nil }
        }
    }

    // MARK: Sessions

    private func start(_ socket: WebSocket, token: String, since: Int64?) async {
        let claims: TokenClaims
        let cursor: EventCursor
        do {
            claims = try tokens.verify(token)
            try await store.ensureUserExists(claims.user)
            cursor = try await store.eventCursor()
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
        let admitted = registry.withLock { registry in
            guard (registry.sessions[claims.user]?.count ?? 0) < maxSocketsPerUser else { return false }
            registry.sessions[claims.user, default: [:]][socket.id] = session
            registry.sessionsBySocket[socket.id] = session
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
            Task { [weak self, weak socket] in
                try? await Task.sleep(for: .seconds(delay))
                guard let self, let socket, self.session(for: socket) != nil else { return }
                self.fail(socket, APIError(AuthError.expired), closeCode: 4401)
            }
        }
    }

    private func session(for socket: WebSocket) -> Session? {
        registry.withLock { $0.sessionsBySocket[socket.id] }
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
}

/// One authenticated socket and how far its user's log has been sent on it.
///
/// Events reach it two ways: `offer` hands over one just committed (sent at once when the
/// event before it in the user's log has been sent), and `schedulePump` reads the log after
/// `lastSent` (on connect, or when an earlier event has not been sent) in a task of its own,
/// one at a time. Both send while holding `state`, and only events after `lastSent`, so nothing
/// is sent twice or out of order.
final class Session: Sendable {
    private struct State {
        var lastSent: Int64
        /// A pump task is running.
        var pumping = false
        /// Asked for again while pumping: read the log once more before ending.
        var again = false
    }

    let claims: TokenClaims
    var user: UserID { claims.user }
    let socket: WebSocket
    let wantsSuggestions: Bool
    private let store: ChatStore
    private let state: Mutex<State>

    init(claims: TokenClaims, socket: WebSocket, store: ChatStore, lastSent: Int64, wantsSuggestions: Bool) {
        self.claims = claims
        self.socket = socket
        self.store = store
        self.state = Mutex(State(lastSent: lastSent))
        self.wantsSuggestions = wantsSuggestions
    }

    /// The event with sequence number `seq` was just appended to this user's log, where
    /// `previous` (when known) came before it.
    func offer(seq: Int64, after previous: Int64?, frame: WebSocketFrame.Text) {
        let behind = state.withLock { state -> Bool in
            if let previous, previous <= state.lastSent, seq > state.lastSent {
                if socket.send(frame) { state.lastSent = seq }
                return false
            }
            return seq > state.lastSent
        }
        if behind { schedulePump() }  // an earlier event has not arrived yet: read the log
    }

    /// Sends a frame that is not part of the log, while holding the log's state, so a frame
    /// never lands inside a replay it belongs after.
    func sendLive(_ json: String) {
        state.withLock { _ in
            // A client that is behind on reading gets the next update instead.
            guard socket.unsentBytes <= socket.maxQueuedBytes / 2 else { return }
            _ = socket.send(json)
        }
    }

    /// Sends whatever is in the log after `lastSent`, in a task; one pumps at a time, and calls
    /// made meanwhile make it read the log once more.
    func schedulePump() {
        let start = state.withLock { state -> Bool in
            if state.pumping {
                state.again = true
                return false
            }
            state.pumping = true
            return true
        }
        if start { Task { await pump() } }
    }

    private func pump() async {
        while true {
            var from = state.withLock { state in
                state.again = false
                return state.lastSent
            }
            while socket.isOpen {
                let events: [StoredEvent]
                do {
                    events = try await store.events(for: user, after: from, limit: 200)
                } catch {
                    // The database is busy or failing: try again shortly rather than drop events.
                    try? await Task.sleep(for: .milliseconds(200))
                    continue
                }
                let (sent, paused) = state.withLock { state -> (Bool, Bool) in
                    for event in events where event.seq > state.lastSent {
                        // A replay waits for the client to read rather than overrun its send buffer
                        // (which drops the socket); live events to a client that stopped reading do not.
                        if socket.unsentBytes > socket.maxQueuedBytes / 2 { return (true, true) }
                        guard socket.send(event.json) else { return (false, false) }
                        state.lastSent = event.seq
                    }
                    from = state.lastSent
                    return (true, false)
                }
                guard sent else { break }
                if paused {
                    try? await Task.sleep(for: .milliseconds(10))
                    continue
                }
                if events.count < 200 { break }
            }
            let done = state.withLock { state -> Bool in
                guard state.again, socket.isOpen else {
                    state.pumping = false
                    return true
                }
                return false
            }
            if done { return }
        }
    }
}
