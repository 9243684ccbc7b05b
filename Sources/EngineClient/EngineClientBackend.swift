import FoundationModels
import ModelStore

// How `SystemLanguageModel.default` reaches the engine in an app that imports only
// `FoundationModels`: the product of that name links this target too, and this conformance,
// looked up at run time by `FoundationModels` (a dynamic cast), hands it the backend. No global
// registration call is needed, and `FoundationModels` names nothing of this module.
extension SystemModelBackendLink: SystemModelBackendProviding {
    package static func makeBackend() -> SystemModelBackend {
        let store = ModelStore()
        return SystemModelBackend(
            locator: StoreModelLocator(store: store), engine: EngineServiceClient.shared(home: store.home))
    }
}
