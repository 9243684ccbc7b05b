/// Why a model id or path does not lead to a model file.
public enum ModelCatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a catalog id, and not a path.
    case unknownModel(String, known: [String])
    /// A catalog model that has not been pulled yet.
    case notDownloaded(id: String, path: String)
    /// A path that names no file.
    case fileNotFound(path: String)

    public var description: String {
        switch self {
        case .unknownModel(let name, let known):
            "unknown model '\(name)'; known models: \(known.joined(separator: ", ")) (or give the path of a .gguf file)"
        case .notDownloaded(let id, let path):
            "model '\(id)' is not downloaded (no \(path)); run `sotto model pull \(id)`"
        case .fileNotFound(let path):
            "no model file at \(path)"
        }
    }
}
