import Foundation
import TestSupport
import Testing

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
    /// Starts `sotto` and returns the first `count` lines it prints, then stops it with SIGTERM.
    /// Fails after `timeLimit` rather than waiting for lines that never come.
    static func firstLines(
        _ count: Int, of arguments: [String], home: URL, extra: [String: String] = [:],
        timeLimit: Duration = .seconds(30)
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
        return text.split(separator: "\n").prefix(count).map(String.init)
    }
}
