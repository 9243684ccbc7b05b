import Foundation
import FoundationModels
import ModelStore

/// Resolves system models' names with `ModelStore`, as every `sotto` command does, and watches
/// the directory each name leads to for its file appearing or going.
package struct StoreModelLocator: SystemModelLocator {
    package let store: ModelStore

    package init(store: ModelStore) {
        self.store = store
    }

    package func locate(_ model: SystemLanguageModel.LocalModel?) -> Result<SystemModelFile, SystemModelLocationFailure>
    {
        switch resolve(model) {
        case .success(let file):
            return .success(SystemModelFile(path: file.path, size: file.size))
        case .failure(let error):
            if case .turnedOff = error { return .failure(.init(isTurnedOff: true, explanation: error.description)) }
            return .failure(.init(explanation: error.description))
        }
    }

    package func watch(
        _ model: SystemLanguageModel.LocalModel?, onChange handler: @escaping @Sendable () -> Void
    ) -> EngineObservation {
        // The file a name leads to, found or not: its directory is where it can appear. A name
        // that leads nowhere (an unknown id, models turned off) cannot change while the process
        // runs.
        let file: String? =
            switch resolve(model) {
            case .success(let file): file.path
            case .failure(.notDownloaded(_, let path)), .failure(.fileNotFound(let path)): path
            case .failure: nil
            }
        guard let file else { return EngineObservation {} }
        return FileWatcher.shared.watch([file], handler: handler)
    }

    /// The file `model` names in the store, or (for nil) the one `SOTTO_MODEL` configures.
    package func resolve(_ model: SystemLanguageModel.LocalModel?) -> Result<ModelFile, ModelStoreError> {
        Result { () throws(ModelStoreError) in
            switch model?.source {
            case nil: try store.resolve(nil)
            case .id(let id): try store.resolve(id: id)
            case .path(let path): try store.resolve(path: path)
            }
        }
    }
}
