import ModelStore

extension SystemLanguageModel {
    /// A local model: an id from Sotto's catalog, or the path of a GGUF file.
    ///
    /// Ids name files in the data directory (`$SOTTO_HOME`, default `~/.sotto`):
    /// `.id("smollm2-135m")` is `~/.sotto/models/smollm2-135m.gguf`. Names resolve through
    /// `ModelStore`, as in every `sotto` command.
    public struct LocalModel: Sendable, Hashable, CustomStringConvertible {
        package enum Source: Sendable, Hashable {
            case id(String)
            case path(String)
        }

        package let source: Source

        /// The model with this catalog id (`qwen2.5-coder-1.5b`, `qwen2.5-coder-0.5b`, `smollm2-135m`).
        public static func id(_ id: String) -> LocalModel { LocalModel(source: .id(id)) }

        /// The GGUF file at `path` (`~` is expanded).
        public static func path(_ path: String) -> LocalModel { LocalModel(source: .path(path)) }

        /// The id used when `SOTTO_MODEL` is not set.
        public static var defaultID: String { ModelCatalog.defaultModelID }

        public var description: String {
            switch source {
            case .id(let id): id
            case .path(let path): path
            }
        }

        /// The file `model` names in `store`, or (for nil) the one `SOTTO_MODEL` configures.
        package static func resolve(_ model: LocalModel?, in store: ModelStore) -> Result<ModelFile, ModelStoreError> {
            Result { () throws(ModelStoreError) in
                switch model?.source {
                case nil: try store.resolve(nil)
                case .id(let id): try store.resolve(id: id)
                case .path(let path): try store.resolve(path: path)
                }
            }
        }
    }
}
