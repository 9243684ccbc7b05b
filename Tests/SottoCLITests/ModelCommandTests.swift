import Foundation
import ModelStore
import TestSupport
import Testing

@Suite("sotto model")
struct ModelCommandTests {
    @Test(.onTestThreads) func help() throws {
        let home = try TemporaryHome()
        let result = try SottoBinary.run(["model", "--help"], home: home.url)
        #expect(result.status == 0)
        #expect(result.stdout.contains("sotto model pull <id>"))
        #expect(result.stdout.contains("sotto model list"))
        let overview = try SottoBinary.run(["--help"], home: home.url)
        #expect(overview.stdout.contains("model"))
    }

    @Test(.onTestThreads) func listShowsPresentMissingAndDamaged() throws {
        let home = try TemporaryHome()
        let smol = try #require(ModelCatalog.model(id: "smollm2-135m"))
        try home.file("smollm2-135m.gguf", size: smol.fileSize)
        try home.file("qwen2.5-coder-0.5b.gguf", size: 1000)
        try home.file("mine.gguf", size: 2_000_000)
        let result = try SottoBinary.run(["model", "list"], home: home.url)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "models in \(home.models.path):")
        #expect(lines.contains { $0.hasPrefix("  smollm2-135m") && $0.contains("present  98.4 MB") })
        #expect(lines.contains { $0.contains("qwen2.5-coder-0.5b") && $0.contains("damaged") })
        #expect(
            lines.contains {
                $0.hasPrefix("* qwen2.5-coder-1.5b") && $0.contains("sotto model pull qwen2.5-coder-1.5b")
            })
        #expect(
            lines.contains { $0.contains("mine.gguf") && $0.contains("2.0 MB") && $0.contains("not in the catalog") })
    }

    @Test(.onTestThreads) func unknownIDNamesTheKnownOnes() throws {
        let home = try TemporaryHome()
        let result = try SottoBinary.run(["model", "pull", "llama-70b"], home: home.url)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        for id in ModelCatalog.knownIDs { #expect(result.stderr.contains(id)) }
        #expect(result.stderr.contains("unknown model 'llama-70b'"))
    }

    @Test(.onTestThreads) func usageErrors() throws {
        let home = try TemporaryHome()
        for arguments in [["model"], ["model", "pull"], ["model", "fetch"], ["model", "pull", "--fast", "x"]] {
            let result = try SottoBinary.run(arguments, home: home.url)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains("usage: sotto model"), "\(arguments)")
        }
    }

    @Test(.onTestThreads) func pullOfAPresentModelDoesNothing() throws {
        let home = try TemporaryHome()
        let smol = try #require(ModelCatalog.model(id: "smollm2-135m"))
        try home.file("smollm2-135m.gguf", size: smol.fileSize)
        // No python on PATH: proves nothing is downloaded.
        let result = try SottoBinary.run(
            ["model", "pull", "smollm2-135m"], home: home.url, extra: ["SOTTO_PYTHON": "/nonexistent"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("smollm2-135m is already present"))
    }

    @Test(.onTestThreads) func pathResolvesIDsAndFiles() throws {
        let home = try TemporaryHome()
        let missing = try SottoBinary.run(["model", "path", "smollm2-135m"], home: home.url)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("run `sotto model pull smollm2-135m`"))
        try home.file("smollm2-135m.gguf", size: 10)
        let present = try SottoBinary.run(["model", "path", "smollm2-135m"], home: home.url)
        #expect(present.stdout == home.models.appendingPathComponent("smollm2-135m.gguf").path + "\n")
        let configured = try SottoBinary.run(["model", "path"], home: home.url, extra: ["SOTTO_MODEL": "smollm2-135m"])
        #expect(configured.stdout == present.stdout)
        let byPath = try SottoBinary.run(["model", "path", home.models.path + "/smollm2-135m.gguf"], home: home.url)
        #expect(byPath.stdout == present.stdout)
    }
}
