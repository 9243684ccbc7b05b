import Foundation
import ModelStore
import Server

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
          --no-suggestions    never suggest replies
          --canned-suggestions  fixed stand-in replies instead of a model (to try the web app)
          --demo              seed the demo conversation if the store has no channels, and print
                              sign-in tokens for alice and bob (valid 24 hours)
          --threads N         worker threads; each open WebSocket holds one (default 256)
        """
    static let valueOptions: Set<String> = ["host", "port", "model", "threads"]
    static let switchOptions: Set<String> = ["no-suggestions", "canned-suggestions", "demo"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let signals = TerminationSignals()
        var configuration = ChatServer.Configuration()
        let host = arguments.string("host") ?? "127.0.0.1"
        configuration.host = host == "localhost" ? "127.0.0.1" : host
        guard let port = try arguments.int("port", default: 8080), (0...65535).contains(port) else {
            throw UsageError(description: "--port must be 0…65535")
        }
        configuration.port = port
        guard let threads = try arguments.int("threads", default: 256), (4...4096).contains(threads) else {
            throw UsageError(description: "--threads must be 4…4096")
        }
        configuration.threads = threads

        let data = ModelStore()
        let suggestions: Suggestions =
            if arguments.has("no-suggestions") {
                Suggestions(suggester: nil, status: "off (--no-suggestions)")
            } else if arguments.has("canned-suggestions") {
                Suggestions(suggester: CannedSuggester(), status: "canned (--canned-suggestions)")
            } else {
                try modelSuggestions(named: arguments.string("model"), in: data)
            }
        let store = try data.openChatStore()
        let secret = try data.loadSecret()
        var signIn = "Sign in with a token from: sotto token <user-id>"
        if arguments.has("demo") {
            if try store.channelCount() == 0 {
                try DemoSeed.seed(into: store)
            }
            let tokens = TokenAuthority(secret: secret)
            signIn = """
                Demo: open the address above in two windows and sign in with these tokens (24 h):
                  alice  \(tokens.token(for: "alice", lifetime: 86_400))
                  bob    \(tokens.token(for: "bob", lifetime: 86_400))
                """
        }
        let server = ChatServer(
            store: store, secret: secret, suggester: suggestions.suggester, configuration: configuration)
        let bound = try server.start()
        // Unbuffered, so whoever started us (a script, a test) sees the port at once.
        FileHandle.standardOutput.write(
            Data(
                """
                Sotto chat listening on http://\(configuration.host):\(bound)
                Reply suggestions: \(suggestions.status)
                \(signIn)

                """.utf8))
        await signals.wait()
        server.stop()
        return 0
    }

    /// The suggester the server runs with, and the line that says so.
    struct Suggestions {
        var suggester: (any ReplySuggester)?
        var status: String
    }

    /// On-device suggestions from the model `name` (a model id or a path; nil: `SOTTO_MODEL`,
    /// else the default), resolved as every command resolves it.
    ///
    /// - Throws: `ModelStoreError` for a model named by `--model` or `SOTTO_MODEL` that is not
    ///   there: the server does not start with a model other than the one asked for. Only when
    ///   nothing names a model (or `SOTTO_MODEL=off`) does it run without suggestions (the web
    ///   app then hides the row).
    static func modelSuggestions(named name: String?, in store: ModelStore) throws(ModelStoreError) -> Suggestions {
        let file: ModelFile
        do throws(ModelStoreError) {
            file = try store.resolve(name)
        } catch .turnedOff(let setting) where name == nil {
            return Suggestions(suggester: nil, status: "off (SOTTO_MODEL=\(setting))")
        } catch .notDownloaded(let id, _) where name == nil && store.configuredModel == nil {
            return Suggestions(
                suggester: nil, status: "off (the default model is not downloaded: run `sotto model pull \(id)`)")
        }
        let suggester = ModelSuggester(model: file)
        guard suggester.isAvailable else {
            return Suggestions(suggester: nil, status: "off (\(file.path) needs more memory than this machine has)")
        }
        suggester.prewarm()
        return Suggestions(suggester: suggester, status: "on (\(file.catalogModel?.id ?? file.path))")
    }
}

/// SIGINT and SIGTERM, caught from the moment this is made: made before the server says it is
/// listening, so a signal sent as soon as it does (as a script or a test would) is not lost.
///
/// `@unchecked Sendable`: `received` and `continuation` are only touched inside `lock`.
private final class TerminationSignals: @unchecked Sendable {
    private let lock = NSLock()
    private var received = false
    private var continuation: CheckedContinuation<Void, Never>?
    private var sources: [any DispatchSourceSignal] = []

    init() {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        sources = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        for source in sources {
            source.setEventHandler { [weak self] in self?.receive() }
            source.resume()
        }
    }

    deinit { sources.forEach { $0.cancel() } }

    /// Returns once a signal has arrived (at once if one already has).
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if received {
                lock.unlock()
                continuation.resume()
            } else {
                self.continuation = continuation
                lock.unlock()
            }
        }
    }

    private func receive() {
        lock.lock()
        received = true
        let waiting = continuation
        continuation = nil
        lock.unlock()
        waiting?.resume()
    }
}
