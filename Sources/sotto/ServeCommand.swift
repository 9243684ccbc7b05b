import ChatStore
import Foundation
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
          --model M           model for reply suggestions (default: $SOTTO_MODEL)
          --no-suggestions    never suggest replies
          --canned-suggestions  fixed stand-in replies instead of a model (to try the web app)
          --demo              seed the demo conversation if the store has no channels, and print
                              sign-in tokens for alice and bob (valid 24 hours)
          --threads N         worker threads; each open WebSocket holds one (default 256)
        """
    static let valueOptions: Set<String> = ["host", "port", "model", "threads"]
    static let switchOptions: Set<String> = ["no-suggestions", "canned-suggestions", "demo"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
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

        let store = try ChatStore.openDefault()
        let secret = try AppSecret.load()
        let model = arguments.string("model") ?? ProcessInfo.processInfo.environment["SOTTO_MODEL"]
        let suggester: (any ReplySuggester)? =
            if arguments.has("no-suggestions") { nil } else if arguments.has("canned-suggestions") {
                CannedSuggester()
            } else { makeSuggester(model: model) }
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
        let server = ChatServer(store: store, secret: secret, suggester: suggester, configuration: configuration)
        let bound = try server.start()
        // Unbuffered, so whoever started us (a script, a test) sees the port at once.
        FileHandle.standardOutput.write(
            Data(
                """
                Sotto chat listening on http://\(configuration.host):\(bound)
                Reply suggestions: \(server.suggestionsAvailable ? "on" : "off")
                \(signIn)

                """.utf8))
        await waitForTermination()
        server.stop()
        return 0
    }

    /// The on-device reply suggester for `model` (nil: `SOTTO_MODEL` or the default), or nil
    /// when that model is not available here: the server then runs without suggestions and
    /// the web app hides the row.
    static func makeSuggester(model: String?) -> (any ReplySuggester)? {
        let suggester = ModelSuggester(model: model)
        guard suggester.isAvailable else { return nil }
        suggester.prewarm()
        return suggester
    }

    /// Suspends until SIGINT or SIGTERM.
    static func waitForTermination() async {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let signals = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .main) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed = ResumeOnce(continuation)
            for source in signals {
                source.setEventHandler { resumed.resume() }
                source.resume()
            }
        }
        signals.forEach { $0.cancel() }
    }
}

/// Resumes a continuation at most once.
///
/// `@unchecked Sendable`: `continuation` is only touched inside `lock`.
private final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?

    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }

    func resume() {
        lock.lock()
        let pending = continuation
        continuation = nil
        lock.unlock()
        pending?.resume()
    }
}
