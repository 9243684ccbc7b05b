import Foundation
import FoundationModels
import ModelStore
import TestSupport
import Testing

@testable import Server
@testable import ServerKit

/// Why `sotto serve` has no model, in the words the page shows: turned off, not downloaded, a
/// machine too small, each naming what to do; a model asked for by name must be there.
@Suite struct ServerModelTests {
    static let gigabyte: UInt64 = 1 << 30

    /// A data directory whose models folder holds a 4 MB stand-in for the catalog model `id`.
    func store(with id: String? = nil, configuredModel: String? = nil) throws -> ModelStore {
        let home = URL(fileURLWithPath: try TestFolders.make("model"), isDirectory: true)
        let store = ModelStore(home: home, configuredModel: configuredModel)
        try FileManager.default.createDirectory(at: store.modelsDirectory, withIntermediateDirectories: true)
        if let id {
            try Data(count: 4 << 20).write(to: store.fileURL(forID: id))
        }
        return store
    }

    @Test(.onTestThreads) func turnedOffSaysHowToTurnItOn() throws {
        let model = try ServerModel.resolve(
            named: nil, in: store(configuredModel: "off"), physicalMemory: 24 * Self.gigabyte)
        #expect(model.model == nil && model.unavailability == .turnedOff)
        #expect(model.message.contains("turned off") && model.message.contains("without SOTTO_MODEL=off"))
    }

    @Test(.onTestThreads) func notDownloadedSaysWhichPullToRun() throws {
        let model = try ServerModel.resolve(named: nil, in: store(), physicalMemory: 24 * Self.gigabyte)
        #expect(model.model == nil && model.unavailability == .notDownloaded)
        let id = ModelCatalog.defaultModelID
        #expect(model.message.contains("\(id) is not downloaded") && model.message.contains("sotto model pull \(id)"))
    }

    @Test(.onTestThreads) func aMachineTooSmallSaysItsSizeAndASmallerModel() throws {
        let id = ModelCatalog.defaultModelID
        let store = try store(with: id)
        // 4 MB of weights need about 516 MB with the room the engine keeps; 256 MB is too little.
        let small = try ServerModel.resolve(named: nil, in: store, physicalMemory: 256 << 20)
        #expect(small.model == nil && small.unavailability == .machineTooSmall)
        #expect(small.message.contains("too small for the model \(id)") && small.message.contains("0.2 GB of memory"))
        #expect(small.message.contains("--model qwen2.5-coder-0.5b"))
        let enough = try ServerModel.resolve(named: nil, in: store, physicalMemory: 24 * Self.gigabyte)
        #expect(enough.model != nil && enough.unavailability == nil && enough.name == id && enough.message.isEmpty)
    }

    @Test(.onTestThreads) func aModelAskedForByNameMustBeThere() throws {
        let store = try store()
        #expect(throws: ModelStoreError.self) {
            try ServerModel.resolve(named: "qwen2.5-coder-0.5b", in: store, physicalMemory: 24 * Self.gigabyte)
        }
        let configured = try self.store(configuredModel: "qwen2.5-coder-0.5b")
        #expect(throws: ModelStoreError.self) {
            try ServerModel.resolve(named: nil, in: configured, physicalMemory: 24 * Self.gigabyte)
        }
    }

    /// With a fallback configured, the features run on it while the local model is unavailable,
    /// named as configured, and the page's state says so; a local model that is there is always
    /// the one chosen (nothing goes to the fallback).
    @Test(.onTestThreads) func theFallbackStandsInOnlyForAMissingLocalModel() throws {
        let remote = SystemLanguageModel(model: .path("/nonexistent/remote.gguf"))
        let missing = ServerModel.turnedOffByFlag.withFallback(remote, name: "m at http://127.0.0.1:9/v1")
        let choice = try missing.required()
        #expect(choice.name == "m at http://127.0.0.1:9/v1" && choice.local == nil)
        let state = ModelState(missing)
        #expect(state.available && state.fallback && state.name == "m at http://127.0.0.1:9/v1")
        #expect(state.reason == "turned_off" && state.message.contains("turned off"))

        let local = SystemLanguageModel(model: .path("/nonexistent/local.gguf"))
        let ready = ServerModel.ready(local, name: "local-model").withFallback(remote, name: "m")
        #expect(try ready.required().name == "local-model" && ready.required().local === local)
        #expect(!ModelState(ready).fallback && ModelState(ready).name == "local-model")

        // A pool that holds the local model runs the features even while it is there.
        let pooled = ServerModel.ready(local, name: "local-model").withPool(remote, name: "local-model here and m")
        #expect(try pooled.required().name == "local-model here and m" && pooled.required().local == nil)
        #expect(ModelState(pooled).pool && !ModelState(pooled).fallback && ModelState(pooled).available)
        #expect(
            pooled.model === local, "the local model is still the one the OpenAI API and the assistant's sizing read")
        // Without a local model, a pool is a fallback like any other.
        let poolOnly = ServerModel.turnedOffByFlag.withPool(remote, name: "m on a pool of 2 servers")
        #expect(ModelState(poolOnly).fallback && !ModelState(poolOnly).pool)

        #expect(throws: APIError.self) { try ServerModel.none.required() }
        #expect(!ModelState(.none).available && !ModelState(.none).fallback)
    }
}
