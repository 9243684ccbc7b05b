import ChatStore
import Foundation
import FoundationModels
import Kernels
import LocalEngine
import ModelStore
import OpenAIServer
import Server
import ServerKit

/// `sotto serve`: the chat server and web app.
struct ServeCommand: Command {
    static let name = "serve"
    static let summary = "Run the chat server and web app."
    static let usage = """
        usage: sotto serve [--host 127.0.0.1] [--port 8080] [--model M] [--no-suggestions] [--demo]

        Serves the web app at / and the JSON API at /api (OpenAPI at /api/openapi.json), with
        data in $SOTTO_HOME/chat.sqlite. Listens on loopback unless --host says otherwise.

          --host ADDRESS      address to listen on (default 127.0.0.1)
          --port N            port (default 8080; 0 picks a free one)
          --model M           model for reply suggestions: an id or a .gguf path (default:
                              $SOTTO_MODEL, else \(ModelCatalog.defaultModelID)); a model that is
                              named here or in $SOTTO_MODEL must be there, or serve does not start.
                              SOTTO_MODEL=off, or a default model not pulled yet: no suggestions
          --no-suggestions    never use the model: no reply suggestions, writing tools, translation,
                              summaries, date actions or search suggestions (the page says so)
          --canned-suggestions  fixed stand-in replies instead of a model (to try the web app; the
                              other model features are off)
          --inference-only    serve the model and nothing of the chat: the OpenAI-compatible API
                              (/v1), /api/health and /api/metrics, a Sotto token of this server's
                              secret as the key; no web app, no WebSocket, no chat routes. An
                              inference server of another server's pool (--pool-urls)
          --demo              seed the demo conversation if the store has no channels, and print
                              one-time links for alice (the first administrator) and bob while
                              they have no password

        On a data directory with no administrator yet, serve makes one: it prints a one-time
        setup link (user 'admin'; with --demo, 'alice') that sets the password and signs in.
          --kernels SET       avx512, avx2, portable or scalar for the model (default: $SOTTO_KERNELS,
                              else the best set this CPU runs)
          --compute-threads N threads the model computes on, shared by every request (default: the
                              cores this process may use, cgroup quota and affinity included)
          --io-threads N      event-loop threads that own the connections (default 2)
          --max-requests N    requests answered at once; more get 503 (default 4096; a request
                              waiting for the database or the model holds no thread)
          --max-connections N           open connections in all (default 20000; raise ulimit -n to match)
          --max-connections-per-ip N    open connections from one address (default 512; users behind
                              one reverse proxy share it)
          --max-sockets-per-user N      open WebSockets of one user (default \(ChatServer.Configuration().maxSocketsPerUser);
                              more are refused with 429 too_many_sockets)
          --rate-limit N      requests (and WebSocket messages) per second per user, bursts of 4×
                              (default 50; 0 turns the limit off)
          --cors-origin ORIGINS  comma-separated origins (https://chat.example.com) whose pages may
                              call the API; default none (CORS off)
          --database URL      the chat's store: a PostgreSQL database (a postgresql:// URL)
                              or an SQLite file; default: $SOTTO_DATABASE, else $SOTTO_HOME/chat.sqlite
          --durability full|normal  full (default): every acknowledged write is synced to disk and
                              survives a crash of the machine; normal: synced at checkpoints only,
                              survives a crash of sotto but not of the machine (faster commits;
                              on PostgreSQL, synchronous_commit off)
          --speech-model M    the Whisper model of POST /v1/audio/transcriptions: a speech model id
                              or folder (default: $SOTTO_SPEECH_MODEL, else \(ModelCatalog.defaultSpeechModelID)
                              when pulled; loaded at the first request); off: none
        \(fallbackUsage)
        \(imageUsage)
        \(limitsUsage)

        The OpenAI-compatible API is at /v1 (GET /v1/models, POST /v1/chat/completions,
        POST /v1/audio/transcriptions), a Sotto token as the API key.
        """
    static let valueOptions: Set<String> = [
        "host", "port", "model", "max-requests", "io-threads", "max-connections", "max-connections-per-ip",
        "max-sockets-per-user", "rate-limit",
        "cors-origin", "durability", "database", "kernels", "compute-threads", "fallback-url", "fallback-model",
        "fallback-key-file", "pool-urls", "pool-model", "pool-key-file", "speech-model", "image-url", "image-model",
        "image-key-file",
    ]
    static let switchOptions: Set<String> = ["no-suggestions", "canned-suggestions", "demo", "inference-only"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let signals = TerminationSignals()
        // This process is a release build with the engine linked in: its system models (the
        // suggester's, and any session the server makes) run here rather than in the service.
        SystemLanguageModel.runInProcess(on: LocalEngineHost.shared)
        var configuration = ChatServer.Configuration()
        configuration.engineMetrics = {
            EngineScheduling.status.map { status in
                EngineMetrics(
                    queued: status.queued, running: status.running, lastBatchSize: status.lastBatchSize,
                    largestBatchSize: status.largestBatchSize, tokensPerSecond: status.tokensPerSecond,
                    steps: status.steps, generatedTokens: status.generatedTokens,
                    forwardSeconds: Double(status.forwardTime.components.seconds)
                        + Double(status.forwardTime.components.attoseconds) / 1e18)
            }
        }
        let host = arguments.string("host") ?? "127.0.0.1"
        configuration.host = host == "localhost" ? "127.0.0.1" : host
        guard let port = try arguments.int("port", default: 8080), (0...65535).contains(port) else {
            throw UsageError(description: "--port must be 0…65535")
        }
        configuration.port = port
        guard let maxRequests = try arguments.int("max-requests", default: 4096), maxRequests >= 1 else {
            throw UsageError(description: "--max-requests must be at least 1")
        }
        configuration.maxRequestsInFlight = maxRequests
        guard let ioThreads = try arguments.int("io-threads", default: 2), (1...64).contains(ioThreads) else {
            throw UsageError(description: "--io-threads must be 1…64")
        }
        configuration.ioThreads = ioThreads
        guard let maxConnections = try arguments.int("max-connections", default: 20_000), maxConnections >= 1 else {
            throw UsageError(description: "--max-connections must be at least 1")
        }
        configuration.maxConnections = maxConnections
        guard let perAddress = try arguments.int("max-connections-per-ip", default: 512), perAddress >= 1 else {
            throw UsageError(description: "--max-connections-per-ip must be at least 1")
        }
        configuration.maxConnectionsPerAddress = perAddress
        guard let perUser = try arguments.int("max-sockets-per-user", default: configuration.maxSocketsPerUser),
            perUser >= 1
        else {
            throw UsageError(description: "--max-sockets-per-user must be at least 1")
        }
        configuration.maxSocketsPerUser = perUser
        guard let rate = try arguments.int("rate-limit", default: 50), rate >= 0 else {
            throw UsageError(description: "--rate-limit must be 0 or more")
        }
        configuration.userRequestsPerSecond = Double(rate)
        configuration.userBurst = Double(max(1, rate * 4))
        if let origins = arguments.string("cors-origin") {
            configuration.corsOrigins = try origins.split(separator: ",").map { part in
                let origin = part.trimmingCharacters(in: .whitespaces)
                guard origin.hasPrefix("http://") || origin.hasPrefix("https://"), !origin.dropFirst(8).contains("/")
                else {
                    throw UsageError(
                        description: "--cors-origin takes origins like https://chat.example.com, got '\(origin)'")
                }
                return origin
            }
        }

        let durability: ChatStore.Durability
        switch arguments.string("durability") ?? "full" {
        case "full": durability = .full
        case "normal": durability = .normal
        case let other: throw UsageError(description: "--durability must be full or normal, got '\(other)'")
        }

        let inferenceOnly = arguments.has("inference-only")
        if inferenceOnly {
            for option in ["no-suggestions", "canned-suggestions", "demo", "fallback-url", "pool-urls", "image-url"]
            where arguments.has(option) || arguments.string(option) != nil {
                throw UsageError(
                    description: "--inference-only serves this server's own model: --\(option) has no place")
            }
            configuration.inferenceOnly = true
        }
        let kernels = try computeSettings(arguments)
        let data = ModelStore()
        let local: Suggestions =
            if arguments.has("no-suggestions") {
                Suggestions(suggester: nil, model: .turnedOffByFlag, status: "off (--no-suggestions)")
            } else if arguments.has("canned-suggestions") {
                Suggestions(suggester: CannedSuggester(), model: .canned, status: "canned (--canned-suggestions)")
            } else if let name = arguments.string("model"), ModelStore.disablingValues.contains(name.lowercased()) {
                Suggestions(
                    suggester: nil,
                    model: .unavailable(
                        .turnedOff,
                        message:
                            "The local model is turned off on this server (--model \(name)). To turn it on, restart sotto serve without it."
                    ), status: "off (--model \(name))")
            } else {
                try modelSuggestions(named: arguments.string("model"), in: data)
            }
        if inferenceOnly, local.model.model == nil {
            throw CommandFailure(
                description: "--inference-only serves a model, and there is none: \(local.model.message)")
        }
        var (suggestions, fallbackStatus, pool) = try withFallback(local, arguments)
        // An inference server drafts nothing itself (it holds no sockets); the prewarm above
        // filled its cache with the drafter's fixed prompt for the requests its pool sends.
        if inferenceOnly { suggestions.suggester = nil }
        if let pool {
            configuration.modelJobsAtOnce = pool.status.count
            configuration.inferenceServers = {
                pool.status.map {
                    InferenceServerMetrics(
                        url: $0.url, up: $0.up, inFlight: $0.inFlight, served: $0.served, failed: $0.failed)
                }
            }
        }
        if local.model.unavailability == .notDownloaded, let missing = ModelCatalog.model(id: data.defaultModelName) {
            // The web app may fetch it; once it is in place the server starts again to load it.
            configuration.modelDownload = ModelDownload(model: missing, installer: ModelInstaller()) { _ in
                signals.restart()
            }
        }
        let speech = try speechModel(arguments, data)
        configuration.transcription = speech.service
        let (imageGeneration, imageStatus) = try imageGeneration(arguments)
        configuration.imageGeneration = imageGeneration
        configuration.readImage = { bytes, name in
            let preview = try await ImageReader.preview(of: bytes, label: name)
            return AttachmentImage(
                width: preview.width, height: preview.height, thumbnail: preview.thumbnail,
                thumbnailType: preview.thumbnailType, modelText: preview.context)
        }
        let store = try await data.openChatStore(database: arguments.string("database"), durability: durability)
        let secret = try data.loadSecret()
        if arguments.has("demo"), try await store.channelCount() == 0 {
            try await DemoSeed.seed(into: store)
        }
        let server = ChatServer(
            store: store, secret: secret, suggester: suggestions.suggester, model: suggestions.model,
            configuration: configuration)
        let bound = try await server.start()
        let threadCount = ThreadPool.shared.threadCount
        let compute = "Model compute: kernels \(kernels), \(threadCount) compute thread\(threadCount == 1 ? "" : "s")"
        // An inference server has no people to sign in.
        var signIn = ""
        if !inferenceOnly {
            signIn = try await Self.signInText(
                store: store, demo: arguments.has("demo"), url: Self.linkBase(host: configuration.host, port: bound))
        }
        let banner =
            inferenceOnly
            ? """
            Sotto inference server listening on http://\(configuration.host):\(bound) (OpenAI-compatible API at /v1; no chat)
            Model: \(suggestions.model.name ?? "")
            Speech to text: \(speech.status)
            \(compute)
            A key for a pool: sotto token <name> --expires-in never, with this server's secret

            """
            : """
            Sotto chat listening on http://\(configuration.host):\(bound)
            Reply suggestions: \(suggestions.status)
            \(suggestions.model.poolHoldsLocal ? "Model pool" : "Fallback model"): \(fallbackStatus)
            Speech to text: \(speech.status)
            Image generation: \(imageStatus)
            \(compute)
            \(signIn)

            """
        // Unbuffered, so whoever started us (a script, a test) sees the port at once.
        FileHandle.standardOutput.write(Data(banner.utf8))
        let restart = await signals.wait()
        server.stop()
        if restart { try startAgain(port: bound) }
        return 0
    }

    /// Replaces this process with `sotto serve` run again with the same options on the port it
    /// listens on now (it loads the model downloaded meanwhile); the web app reconnects.
    /// How people sign in, for the banner: a setup link while there is no administrator; with
    /// --demo, a link for each demo user who has no password yet (a new one each start, which
    /// replaces the last); otherwise the address.
    static func signInText(store: ChatStore, demo: Bool, url: String) async throws -> String {
        var lines: [String] = []
        let hadAdministrator = try await store.hasAdministrator()
        var needsAdministrator = !hadAdministrator
        let people: [(UserID, String)] =
            demo ? [("alice", "Alice"), ("bob", "Bob")] : needsAdministrator ? [("admin", "Administrator")] : []
        for (user, name) in people {
            if try await store.user(user) == nil {
                _ = try await store.upsertUsers([UserUpdate(id: user, name: name)], by: nil)
            }
            guard try await store.credentials(login: user.rawValue)?.passwordHash == nil || needsAdministrator else {
                continue
            }
            let kind: AccountLink.Kind = needsAdministrator ? .setup : .invite
            needsAdministrator = false
            let link = try await OneTimeLink.make(for: user, kind: kind, by: nil, lifetime: 72 * 3600, in: store)
            let role = kind == .setup ? "the first administrator: set a password, then invite your team" : "a demo user"
            lines.append("Open to sign in as \(user), \(role):\n  \(url)\(link.path)")
        }
        if hadAdministrator {
            lines.insert(
                "Sign in at \(url) (invite people from Account in the web app, or: sotto user invite <user-id>)", at: 0)
        }
        lines.append("Scripts and API clients: sotto token <user-id>")
        return lines.joined(separator: "\n")
    }

    /// The address people open: a wildcard listening address is reached on loopback here.
    static func linkBase(host: String, port: Int) -> String {
        let shown = ["0.0.0.0", "::", "[::]", ""].contains(host) ? "127.0.0.1" : host
        return "http://\(shown.contains(":") && !shown.hasPrefix("[") ? "[\(shown)]" : shown):\(port)"
    }

    static func startAgain(port: Int) throws -> Never {
        let arguments = CommandLine.arguments + ["--port", String(port)]
        FileHandle.standardOutput.write(Data("Model downloaded: starting again to load it\n".utf8))
        var argv = arguments.map { strdup($0) }
        argv.append(nil)
        execv("/proc/self/exe", &argv)
        throw CommandFailure(description: "cannot start sotto serve again: \(String(cString: strerror(errno)))")
    }

    /// The speech model `--speech-model` (else `SOTTO_SPEECH_MODEL`) names, which must be there;
    /// with neither, the catalog's default when it is pulled.
    static func speechModel(_ arguments: Arguments, _ data: ModelStore) throws -> (
        service: TranscriptionService, status: String
    ) {
        let named = arguments.string("speech-model") ?? ProcessInfo.processInfo.environment["SOTTO_SPEECH_MODEL"]
        if let named, ModelStore.disablingValues.contains(named.lowercased()) {
            return (TranscriptionService(unavailable: "speech to text is turned off on this server"), "off")
        }
        let name = named ?? ModelCatalog.defaultSpeechModelID
        do {
            let directory = try data.resolveSpeechModel(name)
            let id = ModelCatalog.model(id: name)?.id ?? directory.lastPathComponent
            return (TranscriptionService(modelID: id, directory: directory), "\(id) (loaded at the first request)")
        } catch {
            if named != nil { throw CommandFailure(description: error.description) }
            return (
                TranscriptionService(unavailable: "no speech model: run `sotto model pull \(name)`"),
                "off (sotto model pull \(name))"
            )
        }
    }

    /// `--kernels` and `--compute-threads`, checked against this CPU before anything loads: the
    /// set is made the process's (every model the server loads uses it) and the thread count
    /// sizes the one compute pool. Returns the set, described for the start-up lines.
    static func computeSettings(_ arguments: Arguments) throws -> String {
        if let threads = try arguments.int("compute-threads") {
            guard (1...255).contains(threads) else {
                throw UsageError(description: "--compute-threads must be between 1 and 255")
            }
            ThreadPool.configureShared(threadCount: threads)
        }
        let chosen: KernelSetID
        do {
            chosen = try KernelSelection.resolve(arguments.string("kernels"))
        } catch {
            throw CommandFailure(description: error.description)
        }
        // Models take their set from SOTTO_KERNELS when none is passed; set before any is loaded.
        setenv(KernelSelection.environmentVariable, chosen.rawValue, 1)
        return chosen == KernelSelection.best
            ? chosen.rawValue : "\(chosen.rawValue) (this CPU runs \(KernelSelection.best.rawValue))"
    }

    /// The suggester and model the server runs with, and the line that says so.
    struct Suggestions {
        var suggester: (any ReplySuggester)?
        var model: ServerModel
        var status: String
    }

    /// On-device suggestions and the other model features from the model `name` (a model id or
    /// a path; nil: `SOTTO_MODEL`, else the default), resolved as every command resolves it; one
    /// model, loaded once, serves them all.
    ///
    /// - Throws: `ModelStoreError` for a model named by `--model` or `SOTTO_MODEL` that is not
    ///   there: the server does not start with a model other than the one asked for. Only when
    ///   nothing names a model (or `SOTTO_MODEL=off`) does it run without one (the web app then
    ///   hides the suggestions row and says why the other features are off).
    static func modelSuggestions(named name: String?, in store: ModelStore) throws(ModelStoreError) -> Suggestions {
        let model = try ServerModel.resolve(named: name, in: store)
        guard let systemModel = model.model, let label = model.name else {
            return Suggestions(suggester: nil, model: model, status: "off. \(model.message)")
        }
        let suggester = ModelSuggester(model: systemModel, name: label)
        suggester.prewarm()
        model.prewarm()
        return Suggestions(suggester: suggester, model: model, status: "on (\(label))")
    }
}

/// SIGINT and SIGTERM, caught from the moment this is made: made before the server says it is
/// listening, so a signal sent as soon as it does (as a script or a test would) is not lost.
///
/// A plain handler writes to a pipe (the self-pipe trick) that a thread of its own reads: a
/// process-directed signal goes to any thread that does not block it, and under an async `main`
/// the main thread waits in `sigsuspend` with nothing blocked, so a dispatch signal source (which
/// reads a signalfd) could miss it and the server would never stop.
private final class TerminationSignals: Sendable {
    private let readEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 {
            printError("sotto serve: cannot create the signal pipe: \(String(cString: strerror(errno)))")
        }
        // Not handed to the process that replaces this one when the server starts again.
        for end in ends where end >= 0 { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        readEnd = ends[0]
        terminationPipe = ends[1]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var byte: UInt8 = 1
            _ = write(terminationPipe, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
    }

    /// Asks the server to stop and start again (`wait` returns true).
    func restart() {
        var byte: UInt8 = 2
        _ = write(terminationPipe, &byte, 1)
    }

    /// Returns once a signal has arrived (at once if one already has: the byte waits in the
    /// pipe): false, or true when `restart` asked to start again.
    func wait() async -> Bool {
        let readEnd = readEnd
        guard readEnd >= 0 else { return false }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let waiter = Thread {
                var byte: UInt8 = 0
                while read(readEnd, &byte, 1) < 0 && errno == EINTR {}
                continuation.resume(returning: byte == 2)
            }
            waiter.name = "sotto.signals"
            waiter.start()
        }
    }
}

/// The write end of the pipe the signal handler writes to; set once before the handler is
/// installed, and only read after.
nonisolated(unsafe) private var terminationPipe: Int32 = -1
