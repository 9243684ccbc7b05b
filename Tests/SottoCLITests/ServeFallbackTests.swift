import Foundation
import TestSupport
import Testing

/// `sotto serve`'s hybrid fallback options: off unless given, and refused when incomplete.
@Suite("sotto serve --fallback-url")
struct ServeFallbackTests {
    @Test(
        .onTestThreads,
        arguments: [
            (["--fallback-model", "m"], "--fallback-model and --fallback-key-file need --fallback-url"),
            (["--fallback-url", "http://127.0.0.1:9/v1"], "--fallback-url needs --fallback-model"),
            (["--fallback-url", "ftp://x/v1", "--fallback-model", "m"], "--fallback-url must be an http(s) URL"),
            (
                [
                    "--fallback-url", "http://127.0.0.1:9/v1", "--fallback-model", "m", "--fallback-key-file",
                    "/nonexistent",
                ],
                "cannot read --fallback-key-file /nonexistent"
            ),
            (["--pool-model", "m"], "--pool-model and --pool-key-file need --pool-urls"),
            (["--pool-urls", "http://127.0.0.1:9/v1"], "--pool-urls needs --pool-model"),
            (
                ["--pool-urls", "http://127.0.0.1:9/v1,ftp://x/v1", "--pool-model", "m"],
                "--pool-urls must be http(s) URLs"
            ),
            (
                [
                    "--pool-urls", "http://127.0.0.1:9/v1", "--pool-model", "m", "--fallback-url",
                    "http://127.0.0.1:9/v1",
                ],
                "--fallback-url and --pool-urls: give one or the other"
            ),
        ])
    func incompleteOptionsAreRefused(_ arguments: [String], expected: String) throws {
        let home = try TemporaryHome()
        let result = try SottoBinary.run(["serve", "--port", "0", "--model", "off"] + arguments, home: home.url)
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(expected), "\(result.stderr)")
    }

    @Test(.onTestThreads) func withoutItNothingLeavesTheMachine() throws {
        let home = try TemporaryHome()
        let lines = try SottoBinary.firstLines(3, of: ["serve", "--port", "0", "--model", "off"], home: home.url)
        #expect(lines.dropFirst().first == "Reply suggestions: off (--model off)")
        #expect(lines.last == "Fallback model: off (nothing leaves this machine)")
    }

    @Test(.onTestThreads) func withItTheLinesSayWhereConversationsGo() throws {
        let home = try TemporaryHome()
        let lines = try SottoBinary.firstLines(
            3,
            of: [
                "serve", "--port", "0", "--model", "off", "--fallback-url", "http://127.0.0.1:9/v1", "--fallback-model",
                "m",
            ], home: home.url)
        #expect(
            lines.dropFirst().first
                == "Reply suggestions: from the fallback m at http://127.0.0.1:9/v1 (the local model is unavailable)")
        #expect(
            lines.last
                == "Fallback model: m at http://127.0.0.1:9/v1: the AI features send what they read (conversations, drafts, assistant chats) there"
        )
    }

    /// With a local model, a pool holds it as one more member: the lines say both.
    @Test(.onTestThreads) func aPoolBesideTheLocalModelSaysWhereConversationsMayGo() throws {
        let home = try TemporaryHome()
        let model = try RealModels.path(RealModels.smollm)
        let lines = try SottoBinary.firstLines(
            3,
            of: [
                "serve", "--port", "0", "--model", model, "--pool-urls", "http://127.0.0.1:9/v1", "--pool-model", "m",
            ], home: home.url)
        #expect(
            lines.dropFirst().first?.hasPrefix("Reply suggestions: on (") == true
                && lines.dropFirst().first?.hasSuffix(
                    " here and m on a pool of 1 server: each request where there is most room)") == true,
            "\(lines)")
        #expect(lines.last?.hasPrefix("Model pool: ") == true, "\(lines)")
        #expect(
            lines.last?.hasSuffix(
                " here and m on a pool of 1 server: the AI features send what they read (conversations, drafts, assistant chats) to the pool's servers when they have more room than this one"
            ) == true, "\(lines)")
    }

    /// Credentials in the URL are used for the requests, never shown: the log has the URL
    /// without them (issue 27).
    @Test(.onTestThreads) func theLinesShowTheURLWithoutItsCredentials() throws {
        let home = try TemporaryHome()
        let lines = try SottoBinary.firstLines(
            3,
            of: [
                "serve", "--port", "0", "--model", "off", "--fallback-url",
                "http://operator:hunter2@127.0.0.1:9/v1?key=abc", "--fallback-model", "m",
            ], home: home.url)
        #expect(lines.last?.hasPrefix("Fallback model: m at http://127.0.0.1:9/v1:") == true, "\(lines)")
        #expect(!lines.joined().contains("hunter2") && !lines.joined().contains("operator"))
        #expect(!lines.joined().contains("key=abc"))
    }

    /// With the features turned off or stood in for, the fallback line says why it is unused.
    @Test(
        .onTestThreads,
        arguments: [
            ("--canned-suggestions", "--canned-suggestions stands in for a model"),
            ("--no-suggestions", "--no-suggestions turns the features off"),
        ])
    func anUnusedFallbackSaysWhy(_ flag: String, reason: String) throws {
        let home = try TemporaryHome()
        let lines = try SottoBinary.firstLines(
            3,
            of: [
                "serve", "--port", "0", flag, "--fallback-url", "http://127.0.0.1:9/v1", "--fallback-model", "m",
            ], home: home.url)
        #expect(lines.last == "Fallback model: m at http://127.0.0.1:9/v1, unused: \(reason)", "\(lines)")
    }
}
