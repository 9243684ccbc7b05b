extension SystemLanguageModel {
    /// A local model: an id from Sotto's catalog, or the path of a GGUF file.
    ///
    /// Ids name files in the data directory (`$SOTTO_HOME`, default `~/.sotto`):
    /// `.id("smollm2-135m")` is `~/.sotto/models/smollm2-135m.gguf`. Names are resolved by the
    /// backend the process links (Sotto's engine client resolves them with `ModelStore`, as
    /// every `sotto` command does).
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

        public var description: String {
            switch source {
            case .id(let id): id
            case .path(let path): path
            }
        }
    }
}
