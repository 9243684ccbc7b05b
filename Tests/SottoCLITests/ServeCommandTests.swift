import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("sotto serve")
struct ServeCommandTests {
    /// The part of a failure after `sotto <command>: `.
    private func message(_ result: SottoBinary.Result, command: String) throws -> String {
        let line = try #require(result.stderr.split(separator: "\n").first.map(String.init))
        let prefix = "sotto \(command): "
        try #require(line.hasPrefix(prefix), "\(line)")
        return String(line.dropFirst(prefix.count))
    }

    @Test(.onTestThreads) func aModelNameThatDoesNotExistStopsServeAsItStopsGenerate() throws {
        let home = try TemporaryHome()
        for (arguments, extra) in [(["--model", "typo"], [:]), ([], ["SOTTO_MODEL": "typo"])] {
            let serve = try SottoBinary.run(["serve", "--port", "0"] + arguments, home: home.url, extra: extra)
            let generate = try SottoBinary.run(
                ["generate", "--prompt", "Hi"] + arguments, home: home.url, extra: extra)
            #expect(serve.status == 1 && generate.status == 1)
            #expect(serve.stdout.isEmpty)
            let refused = try message(serve, command: "serve")
            #expect(refused == (try message(generate, command: "generate")))
            #expect(refused.hasPrefix("unknown model 'typo'; known models: qwen2.5-coder-1.5b"))
        }
        // A catalog model asked for by name that is not downloaded: the same, with the pull to run.
        let missing = try SottoBinary.run(["serve", "--model", "smollm2-135m"], home: home.url)
        #expect(missing.status == 1)
        #expect(try message(missing, command: "serve").hasSuffix("run `sotto model pull smollm2-135m`"))
        // Refused before anything was written to the data directory.
        #expect(!FileManager.default.fileExists(atPath: home.url.appendingPathComponent("chat.sqlite").path))
    }

    // The words the web app shows where the model's features would be: the cause, then what to do.
    @Test(
        .onTestThreads,
        arguments: [
            (
                ["SOTTO_MODEL": "off"],
                "Reply suggestions: off. The local model is turned off on this server (SOTTO_MODEL=off). "
                    + "To turn it on, restart sotto serve without SOTTO_MODEL=off."
            ),
            (
                [:],
                "Reply suggestions: off. The model qwen2.5-coder-1.5b is not downloaded on this server. "
                    + "Run `sotto model pull qwen2.5-coder-1.5b` there, then restart sotto serve."
            ),
        ])
    func withoutAModelServeRunsWithoutSuggestionsAndSaysWhy(_ extra: [String: String], expected: String) throws {
        let home = try TemporaryHome()
        let lines = try SottoBinary.firstLines(2, of: ["serve", "--port", "0"], home: home.url, extra: extra)
        #expect(lines.first?.hasPrefix("Sotto chat listening on http://127.0.0.1:") == true)
        #expect(lines.last == expected)
    }
}

extension ServeCommandTests {
    /// A fresh data directory gets its first administrator from a setup link, not raw tokens.
    @Test(.onTestThreads) func aFreshDataDirectoryPrintsASetupLink() throws {
        let home = try TemporaryHome()
        let lines = try SottoBinary.firstLines(
            9, of: ["serve", "--port", "0", "--demo"], home: home.url, extra: ["SOTTO_MODEL": "off"])
        let port = try #require(lines.first?.split(separator: ":").last.map(String.init))
        let setup = try #require(lines.firstIndex { $0.hasPrefix("Open to sign in as alice, the first administrator") })
        #expect(lines[setup + 1].hasPrefix("  http://127.0.0.1:\(port)/#join="))
        #expect(lines.contains { $0.hasPrefix("Open to sign in as bob, a demo user") })
        #expect(!lines.joined().contains("eyJ"))  // no token in the banner
    }
}

extension SottoBinary {
    /// Starts `sotto` and returns the first `count` lines it prints, after `then` ran on them
    /// with the process still running; then stops it with SIGTERM. Fails after `timeLimit`
    /// rather than waiting for lines that never come.
    static func firstLines(
        _ count: Int, of arguments: [String], home: URL, extra: [String: String] = [:],
        timeLimit: Duration = .seconds(30), then: ([String]) throws -> Void = { _ in }
    ) throws -> [String] {
        let process = try process(arguments, home: home, extra: extra)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Past the time limit the process is stopped, so the read below sees the end of output.
        let watchdog = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(
            deadline: .now() + .seconds(Int(timeLimit.components.seconds)), execute: watchdog)
        defer {
            watchdog.cancel()
            process.terminate()
            let deadline = ContinuousClock.now + .seconds(10)
            while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
            if process.isRunning {
                Issue.record("sotto \(arguments) did not stop on SIGTERM within 10 s")
                kill(process.processIdentifier, SIGKILL)
            }
            process.waitUntilExit()
        }
        var text = ""
        while text.split(separator: "\n").count < count {
            let chunk = output.fileHandleForReading.availableData
            try #require(
                !chunk.isEmpty, "sotto \(arguments) stopped or timed out after printing \(text.debugDescription)")
            text += String(decoding: chunk, as: UTF8.self)
        }
        let lines = text.split(separator: "\n").prefix(count).map(String.init)
        try then(lines)
        return lines
    }
}

/// `sotto serve --inference-only`: an inference server of another server's pool serves its
/// model's OpenAI-compatible API and nothing of the chat.
@Suite struct InferenceOnlyTests {
    @Test(.onTestThreads) func itServesTheModelAndNothingOfTheChat() throws {
        let home = try TemporaryHome()
        let model = try RealModels.path(RealModels.smollm)
        let secret = String(repeating: "ab", count: 32)
        let key = try SottoBinary.run(
            ["token", "pool", "--expires-in", "1h"], home: home.url, extra: ["SOTTO_SECRET": secret]
        )
        .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let lines = try SottoBinary.firstLines(
            2, of: ["serve", "--port", "0", "--inference-only", "--model", model], home: home.url,
            extra: ["SOTTO_SECRET": secret]
        ) { lines in
            let port = try #require(
                lines.first?.split(separator: ":").last?.split(separator: " ").first.flatMap { Int($0) }, "\(lines)")
            let models = try Self.get(port, "/v1/models", key: key)
            #expect(models.status == 200 && models.body.contains("\"object\":\"list\""), "\(models)")
            #expect(try Self.get(port, "/v1/models", key: nil).status == 401)
            #expect(try Self.get(port, "/api/health", key: nil).status == 200)
            for path in ["/", "/api/me", "/api/channels", "/api/connect"] {
                #expect(try Self.get(port, path, key: key).status == 404, "\(path)")
            }
        }
        #expect(lines.first?.hasPrefix("Sotto inference server listening on http://127.0.0.1:") == true, "\(lines)")
        #expect(lines.first?.hasSuffix("(OpenAI-compatible API at /v1; no chat)") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("Model: ") == true, "\(lines)")
    }

    @Test(
        .onTestThreads,
        arguments: [
            (["--model", "off"], "--inference-only serves a model, and there is none"),
            (["--demo"], "--demo has no place"),
            (["--pool-urls", "http://127.0.0.1:9/v1", "--pool-model", "m"], "--pool-urls has no place"),
        ])
    func withoutAModelOrWithChatOptionsItDoesNotStart(_ arguments: [String], expected: String) throws {
        let home = try TemporaryHome()
        let result = try SottoBinary.run(["serve", "--port", "0", "--inference-only"] + arguments, home: home.url)
        #expect(result.status != 0)
        #expect(result.stderr.contains(expected), "\(result.stderr)")
    }

    /// `GET path` on loopback `port`, with `key` as the bearer token: the status and body.
    static func get(_ port: Int, _ path: String, key: String?) throws -> (status: Int, body: String) {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        let done = DispatchSemaphore(value: 0)
        let answer = Mutex<(Int, String)?>(nil)
        URLSession.shared.dataTask(with: request) { data, response, _ in
            answer.withLock {
                $0 = ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data ?? Data(), as: UTF8.self))
            }
            done.signal()
        }.resume()
        #expect(done.wait(timeout: .now() + 30) == .success, "GET \(path) got no answer")
        let (status, body) = answer.withLock { $0 } ?? (0, "")
        return (status, body)
    }
}
