/// Why a model name does not lead to a model file, or the data directory cannot be made.
public enum ModelStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a catalog id, and not a path.
    case unknownModel(String, known: [String])
    /// A catalog model that has not been pulled yet.
    case notDownloaded(id: String, path: String)
    /// A path that names no file.
    case fileNotFound(path: String)
    /// No model was named and `SOTTO_MODEL` (`setting`) turns models off.
    case turnedOff(setting: String)
    /// The data directory could not be created.
    case cannotCreate(path: String, reason: String)

    public var description: String {
        switch self {
        case .unknownModel(let name, let known):
            "unknown model '\(name)'; known models: \(known.joined(separator: ", ")) (or give the path of a .gguf file)"
        case .notDownloaded(let id, let path):
            "model '\(id)' is not downloaded (no \(path)); run `sotto model pull \(id)`"
        case .fileNotFound(let path):
            "no model file at \(path)"
        case .turnedOff(let setting):
            "models are turned off (SOTTO_MODEL=\(setting))"
        case .cannotCreate(let path, let reason):
            "cannot create the data directory \(path): \(reason)"
        }
    }
}
