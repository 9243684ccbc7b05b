import Foundation
import Inference
import TestSupport
import Testing

/// Runs `sotto` on the real models' data directory (`RealModels.store`) with `input` on standard
/// input.
private func run(_ arguments: [String], input: String) throws -> SottoBinary.Result {
    let process = try SottoBinary.process(arguments, home: RealModels.store.home)
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return SottoBinary.Result(
        status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
        stderr: String(decoding: err, as: UTF8.self))
}

private func json(_ text: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? [String: Any], "not a JSON object: \(text)")
}

@Suite("sotto generate, tokenize, bench, chat", .serialized)
struct ModelCLITests {
    static let commands = ["generate", "tokenize", "bench", "chat"]

    @Test(.onTestThreads, arguments: commands)
    func helpPrintsUsage(_ command: String) throws {
        let home = try TemporaryHome()
        let result = try SottoBinary.run([command, "--help"], home: home.url)
        #expect(result.status == 0)
        #expect(result.stdout.contains("usage: sotto \(command) --model M"))
        let overview = try SottoBinary.run(["--help"], home: home.url)
        #expect(overview.stdout.contains("  \(command) "))
    }

    @Test(.onTestThreads, arguments: commands)
    func unknownFlagPrintsUsageAndExits2(_ command: String) throws {
        let home = try TemporaryHome()
        let result = try SottoBinary.run([command, "--model", "smollm2-135m", "--frobnicate", "1"], home: home.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown option --frobnicate"))
        #expect(result.stderr.contains("usage: sotto \(command)"))
        #expect(result.stdout.isEmpty)
    }

    @Test(.onTestThreads, arguments: commands)
    func missingModelSaysHowToPullIt(_ command: String) throws {
        let home = try TemporaryHome()
        var arguments = [command, "--model", "qwen2.5-coder-0.5b"]
        if command == "generate" { arguments += ["--prompt", "Hi"] }
        if command == "tokenize" { arguments += ["--text", "Hi"] }
        let result = try SottoBinary.run(arguments, home: home.url)
        #expect(result.status != 0)
        #expect(result.stderr.contains("sotto model pull qwen2.5-coder-0.5b"))
        #expect(result.stdout.isEmpty)
    }

    @Test(.onTestThreads) func badValuesAreUsageErrors() throws {
        let home = try TemporaryHome()
        let cases: [[String]] = [
            ["generate", "--model", "smollm2-135m"],  // no --prompt
            ["generate", "--prompt", "x", "--max-tokens", "many"],
            ["generate", "--prompt", "x", "--top-p", "1.5"],
            ["generate", "--prompt", "x", "--temperature", "-1"],
            ["generate", "--prompt", "x", "--threads", "0"],
            ["bench", "--prompt-tokens", "0"],
            ["tokenize", "stray"],
            ["serve", "--durability", "sometimes"],
        ]
        for arguments in cases {
            let result = try SottoBinary.run(arguments, home: home.url)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains("usage: sotto \(arguments[0])"), "\(arguments)")
        }
    }

    @Test(.onTestThreads) func notAModelFileIsAClearError() throws {
        let home = try TemporaryHome()
        let path = home.url.appendingPathComponent("junk.gguf").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("not a model".utf8)))
        let result = try SottoBinary.run(["generate", "--model", path, "--prompt", "Hi"], home: home.url)
        #expect(result.status == 1)
        #expect(result.stderr.contains("GGUF"))
    }

    @Test(.onTestThreads) func generateJSONGreedyIsDeterministic() throws {
        _ = try RealModels.file(RealModels.smollm)
        let arguments = [
            "generate", "--model", "smollm2-135m", "--prompt", "Name three colours.", "--temperature", "0",
            "--max-tokens", "12", "--threads", "2", "--json",
        ]
        let first = try run(arguments, input: "")
        #expect(first.status == 0, "\(first.stderr)")
        let object = try json(first.stdout)
        let tokens = try #require(object["tokens"] as? [Int])
        #expect(!tokens.isEmpty && tokens.count <= 12)
        #expect(object["text"] is String)
        #expect((object["prompt_tokens"] as? Int ?? 0) > 5)
        #expect((object["prefill_tokens_per_second"] as? Double ?? 0) > 0)
        #expect((object["decode_tokens_per_second"] as? Double ?? 0) > 0)
        let second = try json(try run(arguments, input: "").stdout)
        #expect(second["tokens"] as? [Int] == tokens)

        // Streaming mode prints the same text.
        let streamed = try run(Array(arguments.dropLast()), input: "")
        #expect(streamed.status == 0)
        #expect(streamed.stdout == (object["text"] as? String ?? "") + "\n")
    }

    @Test(.onTestThreads) func generateRawParsesSpecialTokensAndSeedsReproduce() throws {
        _ = try RealModels.file(RealModels.smollm)
        let arguments = [
            "generate", "--model", "smollm2-135m", "--raw", "--prompt",
            "<|im_start|>user\nTell me a story.<|im_end|>\n<|im_start|>assistant\n", "--temperature", "1.0",
            "--seed", "7", "--max-tokens", "10", "--json",
        ]
        let a = try json(try run(arguments, input: "").stdout)
        let b = try json(try run(arguments, input: "").stdout)
        #expect(a["tokens"] as? [Int] == b["tokens"] as? [Int])
        // `<|im_start|>` and `<|im_end|>` are one token each, so the prompt is short.
        #expect((a["prompt_tokens"] as? Int ?? 0) < 20)
    }

    @Test(.onTestThreads) func tokenizeMatchesTheLibraryAndKeepsSpecialTextLiteral() throws {
        let text = "Hello, <|im_start|> wörld 123!"
        let tokenizer = try Model.tokenizer(contentsOf: RealModels.file(RealModels.qwen).url)
        let expected = tokenizer.encode(text, parseSpecial: false)
        #expect(!expected.contains(try #require(tokenizer.tokenID(for: "<|im_start|>"))))

        let viaFlag = try run(["tokenize", "--model", "qwen2.5-coder-0.5b", "--text", text, "--json"], input: "")
        #expect(viaFlag.status == 0)
        #expect(try json(viaFlag.stdout)["tokens"] as? [Int] == expected)

        let viaStdin = try run(["tokenize", "--model", "qwen2.5-coder-0.5b"], input: text)
        #expect(viaStdin.stdout == expected.map(String.init).joined(separator: " ") + "\n")
    }

    @Test(.onTestThreads) func benchReportsSpeeds() throws {
        _ = try RealModels.file(RealModels.smollm)
        let result = try run(
            [
                "bench", "--model", "smollm2-135m", "--prompt-tokens", "16", "--gen-tokens", "4", "--threads", "1",
                "--json",
            ],
            input: "")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try json(result.stdout)
        #expect((object["prefill_tokens_per_second"] as? Double ?? 0) > 0)
        #expect((object["decode_tokens_per_second"] as? Double ?? 0) > 0)
        #expect(object["threads"] as? Int == 1)
        #expect((object["weight_bytes_per_token"] as? Int ?? 0) > 90_000_000)
    }

    @Test(.onTestThreads) func chatAnswersEachLineAndQuitsAtEndOfInput() throws {
        _ = try RealModels.file(RealModels.smollm)
        let result = try run(
            ["chat", "--model", "smollm2-135m", "--temperature", "0", "--max-tokens", "8", "--system", "Be brief."],
            input: "Hello!\n\n/reset\nWhat is 2+2?\n")
        #expect(result.status == 0, "\(result.stderr)")
        // Two replies, each ending with a newline; no prompt characters when input is not a terminal.
        #expect(result.stdout.split(separator: "\n", omittingEmptySubsequences: false).count >= 3)
        #expect(!result.stdout.contains("> "))
    }
}
