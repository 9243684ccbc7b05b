import AssistantServer
import ChatStore
import Foundation
import HTTPCore
import OpenAIServer
import ServerKit
import Synchronization

/// The Sotto chat server: JSON API, `/api/connect` WebSocket events, the web app, and reply
/// suggestions when a suggester is given.
///
/// ```swift
/// let data = ModelStore()  // the data directory
/// let store = try ChatStore(path: data.chatDatabase.path)
/// let server = ChatServer(store: store, secret: try AppSecret.load(home: data.home.path), suggester: nil)
/// let port = try server.start()
/// ```
public final class ChatServer: Sendable {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        public var port = 8080
        public var maxBodyBytes = 64 * 1024
        /// The largest image the assistant takes: its upload route is the one whose body may be
        /// larger than `maxBodyBytes`.
        public var maxImageBytes = 8 * 1024 * 1024
        /// Event-loop threads (sockets are spread over them).
        public var ioThreads = 2
        /// Requests answered at once; more get 503.
        public var maxRequestsInFlight = 4096
        /// Open connections in all, and from one client address.
        public var maxConnections = 20_000
        public var maxConnectionsPerAddress = 512
        /// Open WebSockets one user may have (the per-address cap is the looser bound: users
        /// behind one reverse proxy share an address).
        public var maxSocketsPerUser = EventHub.defaultMaxSocketsPerUser
        /// Assistant answers, summaries and continuations one user may have running at once;
        /// more get 429 with `Retry-After`.
        public var maxAssistantTurnsPerUser = AssistantEngine.defaultMaxTurnsPerUser
        /// Requests (and WebSocket messages) per second per user, and the burst allowed; 0: no limit.
        public var userRequestsPerSecond: Double = 50
        public var userBurst: Double = 200
        /// Unsent bytes a WebSocket may hold before it is dropped (its client resumes with `since`).
        public var webSocketMaxQueuedBytes = 1 << 20
        /// Origins allowed to call the API from a browser page elsewhere (CORS); empty: none.
        public var corsOrigins: [String] = []
        /// OpenAI-compatible completions admitted at once (running or waiting); more get 429.
        public var completionQueueCapacity = OpenAIAPI.defaultQueueCapacity
        /// The download of the missing default model the web app may start; nil: none offered.
        public var modelDownload: ModelDownload?
        /// The speech model behind `/v1/audio/transcriptions` (without one the route answers 503).
        public var transcription = TranscriptionService(unavailable: "no speech model")
        /// An image model to make images with on request (off: none); see ``ImageGeneration``.
        public var imageGeneration: ImageGeneration?
        /// Reads an image attached in a channel: its size, thumbnail, and the text the model
        /// features read of it (nil: images are kept and shown without them).
        public var readImage: (@Sendable (_ bytes: [UInt8], _ name: String) async throws -> AttachmentImage)?
        /// Reply suggestions generated at once: the engine decodes them in one batch, reading
        /// the weights once per step for all of them.
        public var maxSuggestionsAtOnce = 8
        /// Model jobs (writing tools, translations, summaries, search suggestions, date actions)
        /// run at once: one on a local model; as many as a pool has members
        /// (`sotto serve --pool-urls`), so each member can take one.
        public var modelJobsAtOnce = 1
        /// Serves the model and nothing of the chat (`sotto serve --inference-only`): the
        /// OpenAI-compatible API (`/v1/…`), `/api/health`, `/api/metrics` and the OpenAPI
        /// document, a Sotto token as the key; no web app, no WebSocket, no chat routes. An
        /// inference server of a pool (``inferenceOnlyPaths``).
        public var inferenceOnly = false
        /// Hashes and checks passwords (nil: argon2id with libsodium's interactive limits; tests
        /// pass ``PasswordHasher/forTests()``).
        package var passwordHasher: PasswordHasher?
        /// What the model engines in this process are doing, for `/api/metrics` (none: no engine here).
        public var engineMetrics: @Sendable () -> [EngineMetrics] = { [] }
        /// The inference servers of a pool the features run on (`--pool-urls`), for `/api/metrics`.
        public var inferenceServers: @Sendable () -> [InferenceServerMetrics] = { [] }

        public init(host: String = "127.0.0.1", port: Int = 8080) {
            self.host = host
            self.port = port
        }
    }

    public let store: ChatStore
    public let tokens: TokenAuthority
    package let scheduler: SuggestionScheduler
    package let router: Router
    let hub: EventHub
    private let http: HTTPServer
    private let pruning = Mutex<Task<Void, Never>?>(nil)
    /// `Configuration.inferenceOnly`: the chat's servers prune the event log, not this one.
    private let inferenceOnly: Bool
    /// Keeps `tokens.access` in step with the store (revoked tokens, disabled users).
    let accessMonitor: UserAccessMonitor

    /// The model behind the AI features beyond reply suggestions (writing tools, translation,
    /// summaries, date actions, search suggestions), or why there is none.
    public let model: ServerModel
    let jobs: ModelJobs
    /// The assistant's sessions and the answers being written.
    let assistant: AssistantEngine

    /// - Parameter model: the model of the writing tools and the other features; pass the one
    ///   `suggester` uses, so it is loaded once.
    public init(
        store: ChatStore, secret: String, suggester: (any ReplySuggester)?, model: ServerModel = .none,
        configuration: Configuration = .init()
    ) {
        self.model = model
        self.store = store
        inferenceOnly = configuration.inferenceOnly
        let tokens = TokenAuthority(secret: secret)
        self.tokens = tokens
        let cors = CORSPolicy(allowedOrigins: configuration.corsOrigins)
        let limiter = RateLimiter(rate: configuration.userRequestsPerSecond, burst: configuration.userBurst)
        let hub = EventHub(
            store: store, tokens: tokens, cors: cors, limiter: limiter,
            maxSocketsPerUser: configuration.maxSocketsPerUser)
        self.hub = hub
        accessMonitor = UserAccessMonitor(store: store, list: tokens.access) { [weak hub] in
            hub?.closeRefusedSockets()
        }
        // Every event goes out as its write commits, in seq order, from the store's writer: a
        // socket gets its events in order and seldom has to read the log. (Set below, once the
        // API exists; weakly: the store holds the sink, and the hub holds the store.)
        scheduler = SuggestionScheduler(
            suggester: suggester, maxRunning: configuration.maxSuggestionsAtOnce, store: store, live: hub)
        let jobs = ModelJobs(live: hub, workers: configuration.modelJobsAtOnce)
        self.jobs = jobs
        let document = DocumentHolder()
        let intelligence = IntelligenceAPI(store: store, model: model, jobs: jobs)
        let api = ChatAPI(
            store: store, hub: hub, scheduler: scheduler, document: document, tokens: tokens,
            modelState: intelligence.state, speechState: configuration.transcription.state,
            imagesState: ImageGenerationState(configuration.imageGeneration))
        hub.typingHandler = { user, cid, started in try await api.typing(user, in: cid, started: started) }
        let files = StaticFiles.app
        var routes = api.routes
        MessageChangesAPI(store: store) { message in
            await api.refreshSuggestions(after: message, members: (try? await store.memberIDs(of: message.cid)) ?? [])
        }.add(to: &routes)
        // Messages another server stored (a database shared by several): this server drafts the
        // reply suggestions of the sockets it holds, as it does after its own.
        hub.messageFromAnotherServer = { message, members in
            await api.refreshSuggestions(after: message, members: members)
        }
        // An inference-only server holds no sockets: no sink, so on PostgreSQL no feed reads the
        // log for it either.
        if !configuration.inferenceOnly { store.deliverEvents { [weak hub] event in hub?.deliver(event) } }
        ThreadsAPI(store: store).add(to: &routes)
        AttachmentsAPI(store: store, readImage: configuration.readImage).add(to: &routes)
        TeamChannelsAPI(store: store).add(to: &routes)
        intelligence.add(to: &routes)
        let assistant = AssistantEngine(
            store: store, model: model, maxTurnsPerUser: configuration.maxAssistantTurnsPerUser, live: hub)
        self.assistant = assistant
        AssistantAPI(
            store: store, engine: assistant, modelState: { intelligence.state },
            maxImageBytes: configuration.maxImageBytes, imageGeneration: configuration.imageGeneration
        ).add(to: &routes)
        ModelDownloadAPI(download: configuration.modelDownload).add(to: &routes)
        let accessMonitor = self.accessMonitor
        AccountAPI(
            store: store, tokens: tokens, hasher: configuration.passwordHasher ?? PasswordHasher(),
            accessChanged: { await accessMonitor.refresh() }
        ).add(to: &routes)
        let scheduler = self.scheduler
        MetricsAPI(
            engines: configuration.engineMetrics, inferenceServers: configuration.inferenceServers,
            suggestions: { scheduler.load }, sockets: { hub.connectionCount }
        ).add(to: &routes)
        // One sign-in check for every route: the router's, and the OpenAI routes' own (which answer
        // a bad key in OpenAI's shape). A token names a user the operator vouched for: make sure
        // they exist before any route relies on it (not only after they called /api/me).
        let authenticate: @Sendable (HTTPRequest) async throws -> TokenClaims = { request in
            let claims = try Self.authenticate(request, tokens: tokens)
            try await store.ensureUserExists(claims.user)
            return claims
        }
        OpenAIAPI(
            model: model, authenticate: authenticate,
            queue: CompletionQueue(capacity: configuration.completionQueueCapacity)
        ).add(to: &routes)
        TranscriptionAPI(service: configuration.transcription, authenticate: authenticate).add(to: &routes)
        if configuration.inferenceOnly {
            routes.keep { route in Self.inferenceOnlyPaths.contains { route.pattern.hasPrefix($0) } }
        }
        var appFiles: (@Sendable (HTTPRequest) -> HTTPResponse)?
        if !configuration.inferenceOnly { appFiles = { request in files.respond(to: request) } }
        router = Router(routes: routes, authenticate: authenticate, limiter: limiter, cors: cors, fallback: appFiles)
        document.describe(router.routes)
        var httpConfiguration = HTTPServer.Configuration(host: configuration.host, port: configuration.port)
        httpConfiguration.limits.maxBodyBytes = configuration.maxBodyBytes
        httpConfiguration.limits.bodyLimit = Self.bodyLimit(maxImageBytes: configuration.maxImageBytes, tokens: tokens)
        httpConfiguration.ioThreads = configuration.ioThreads
        httpConfiguration.maxRequestsInFlight = configuration.maxRequestsInFlight
        httpConfiguration.maxConnections = configuration.maxConnections
        httpConfiguration.maxConnectionsPerAddress = configuration.maxConnectionsPerAddress
        httpConfiguration.webSocketMaxQueuedBytes = configuration.webSocketMaxQueuedBytes
        httpConfiguration.errorResponse = { error in
            if let path = error.path, OpenAIAPI.owns(path) { return OpenAIError(framing: error).response }
            return APIError(status: error.status, code: error.code, message: error.message).response
        }
        http = HTTPServer(
            configuration: httpConfiguration, responder: router,
            webSocket: configuration.inferenceOnly ? nil : (path: "/api/connect", responder: hub))
    }

    /// What an inference-only server serves: the routes whose paths start with one of these.
    static let inferenceOnlyPaths = ["/v1/", "/api/health", "/api/metrics", "/api/openapi.json"]

    /// The body limit of the routes that take more than `maxBodyBytes`: the assistant's image
    /// upload, a channel's file upload and the audio of `/v1/audio/transcriptions`, for a
    /// request with a valid token (without one, nobody may make the server hold megabytes).
    /// Decided from the request head, so a larger body is refused before it is read.
    static func bodyLimit(maxImageBytes: Int, tokens: TokenAuthority) -> @Sendable (HTTPRequest) -> Int? {
        { head in
            let limit: Int
            if AssistantAPI.isImageUpload(method: head.method, path: head.path) {
                limit = maxImageBytes
            } else if AttachmentsAPI.isUpload(method: head.method, path: head.path) {
                limit = ChatStore.maxAttachmentBytes
            } else if TranscriptionAPI.isUpload(method: head.method, path: head.path) {
                limit = TranscriptionAPI.maxBytes
            } else {
                return nil
            }
            return (try? authenticate(head, tokens: tokens)) != nil ? limit : nil
        }
    }

    /// Starts listening; returns the bound port.
    @discardableResult
    public func start() async throws -> Int {
        // A client that resets its connection while the server writes to it makes the write
        // raise SIGPIPE, whose default action ends the process: one client could stop the
        // server. (libuv leaves the signal to the application.) The write fails with EPIPE
        // instead, and the connection is closed.
        signal(SIGPIPE, SIG_IGN)
        // Revoked tokens and disabled users are refused from the first request on.
        await accessMonitor.start()
        let port = try http.start()
        let store = store
        if inferenceOnly { return port }
        pruning.withLock { task in
            // Old events go now and then hourly; clients asking for them get a resync.
            task = Task.detached(priority: .utility) {
                repeat { try? await store.pruneEvents() } while (try? await Task.sleep(for: .seconds(3600))) != nil
            }
        }
        return port
    }

    /// Stops listening and closes every socket.
    public func stop() {
        pruning.withLock { task in
            task?.cancel()
            task = nil
        }
        accessMonitor.stop()
        http.stop()
    }

    /// Whether replies can be suggested.
    public var suggestionsAvailable: Bool { scheduler.isAvailable }

    /// The claims of the request's bearer token or, for a browser, of its session cookie under
    /// the CSRF rule (``SessionCookie``).
    static func authenticate(_ request: HTTPRequest, tokens: TokenAuthority) throws -> TokenClaims {
        if let header = request.header("Authorization") {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw AuthError.malformed("expected 'Authorization: Bearer <token>'")
            }
            return try tokens.verify(parts[1].trimmingCharacters(in: .whitespaces))
        }
        guard let token = SessionCookie.token(in: request) else { throw AuthError.missing }
        let claims = try tokens.verify(token)
        try SessionCookie.checkCSRF(request, claims: claims, tokens: tokens)
        return claims
    }
}
