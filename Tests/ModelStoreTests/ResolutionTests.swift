import Foundation
import TestSupport
import Testing

@testable import ModelStore

@Suite struct ResolutionTests {
    @Test(.onTestThreads) func theDataDirectoryComesFromTheEnvironment() {
        #expect(ModelStore(environment: ["HOME": "/h"]).home.path == "/h/.sotto")
        #expect(ModelStore(environment: ["HOME": "/h", "SOTTO_HOME": ""]).home.path == "/h/.sotto")
        #expect(ModelStore(environment: ["HOME": "/h", "SOTTO_HOME": "~/data"]).home.path == "/h/data")
        let store = ModelStore(environment: ["SOTTO_HOME": "/s"])
        #expect(store.modelsDirectory.path == "/s/models")
        #expect(store.downloadCache.path == "/s/cache/pip")
        #expect(store.packedWeightsDirectory.path == "/s/cache/packed")
        #expect(store.chatDatabase.path == "/s/chat.sqlite")
        #expect(store.fileURL(forID: "smollm2-135m").path == "/s/models/smollm2-135m.gguf")
    }

    @Test(.onTestThreads) func idsPathsAndUnknownNames() throws {
        let home = try TemporaryHome()
        let store = ModelStore(environment: ["SOTTO_HOME": home.url.path, "HOME": "/home/someone"])
        let smolPath = home.models.path + "/smollm2-135m.gguf"
        #expect(throws: ModelStoreError.notDownloaded(id: "smollm2-135m", path: smolPath)) {
            try store.resolve("smollm2-135m")
        }
        #expect(throws: ModelStoreError.unknownModel("gpt-5", known: ModelCatalog.knownIDs)) {
            try store.resolve("gpt-5")
        }
        // An id that is not in the catalog is unknown even when asked for as an id.
        #expect(throws: ModelStoreError.unknownModel("mine", known: ModelCatalog.knownIDs)) {
            try store.resolve(id: "mine")
        }
        #expect(throws: ModelStoreError.fileNotFound(path: "/home/someone/x.gguf")) { try store.resolve("~/x.gguf") }
        // A directory is not a model file.
        #expect(throws: ModelStoreError.fileNotFound(path: home.models.path)) { try store.resolve(home.models.path) }

        try home.file("smollm2-135m.gguf", size: 1234)
        let byID = try store.resolve(" smollm2-135m ")
        #expect(byID.path == smolPath)
        #expect(byID.size == 1234)
        #expect(byID.catalogModel?.id == "smollm2-135m")
        let byPath = try store.resolve(smolPath)
        #expect(byPath.url == byID.url && byPath.catalogModel == nil)
    }

    @Test(.onTestThreads) func sottoModelPicksTheDefaultOrTurnsModelsOff() throws {
        let home = try TemporaryHome()
        try home.file("smollm2-135m.gguf", size: 10)
        let base = ["SOTTO_HOME": home.url.path]
        let unset = ModelStore(environment: base)
        #expect(unset.configuredModel == nil && unset.defaultModelName == ModelCatalog.defaultModelID)
        #expect(
            throws: ModelStoreError.notDownloaded(
                id: "qwen2.5-coder-1.5b", path: home.models.path + "/qwen2.5-coder-1.5b.gguf")
        ) {
            try unset.resolve(nil)
        }
        let configured = ModelStore(environment: base.merging(["SOTTO_MODEL": " smollm2-135m "]) { $1 })
        #expect(configured.defaultModelName == "smollm2-135m")
        #expect(try configured.resolve(nil).url.lastPathComponent == "smollm2-135m.gguf")
        let typo = ModelStore(environment: base.merging(["SOTTO_MODEL": "smollm"]) { $1 })
        #expect(throws: ModelStoreError.unknownModel("smollm", known: ModelCatalog.knownIDs)) { try typo.resolve(nil) }
        for off in ["off", "OFF", "none", "disabled", "0", "false"] {
            let store = ModelStore(environment: base.merging(["SOTTO_MODEL": off]) { $1 })
            #expect(store.isTurnedOff)
            #expect(throws: ModelStoreError.turnedOff(setting: off)) { try store.resolve(nil) }
            // A model named outright is still found.
            #expect(try store.resolve("smollm2-135m").size == 10)
        }
    }

    @Test(.onTestThreads) func errorsSayWhatToDo() {
        #expect(ModelStoreError.notDownloaded(id: "a", path: "/p").description.contains("run `sotto model pull a`"))
        let unknown = ModelStoreError.unknownModel("x", known: ["a", "b"]).description
        #expect(unknown == "unknown model 'x'; known models: a, b (or give the path of a .gguf file)")
        #expect(ModelStoreError.turnedOff(setting: "off").description.contains("SOTTO_MODEL=off"))
    }

    @Test(.onTestThreads) func theDataDirectoryIsCreatedOwnerOnly() throws {
        let parent = try TemporaryHome()
        let store = ModelStore(home: parent.url.appendingPathComponent("nested/home"))
        try store.createHome()
        let attributes = try FileManager.default.attributesOfItem(atPath: store.home.path)
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o700)
    }
}
