import Foundation
import Testing

/// The models tests read, found under `$SOTTO_HOME/models` (default `~/.sotto/models`).
enum ModelFiles {
    static var directory: String {
        let home = ProcessInfo.processInfo.environment["SOTTO_HOME"] ?? (NSHomeDirectory() + "/.sotto")
        return home + "/models"
    }

    static func exists(_ id: String) -> Bool {
        FileManager.default.fileExists(atPath: directory + "/\(id).gguf")
    }

    /// The path of model `id`, or a recorded failure telling how to fetch it.
    static func path(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        let path = directory + "/\(id).gguf"
        guard FileManager.default.fileExists(atPath: path) else {
            Issue.record("model file \(path) is missing; run `sotto model pull \(id)`", sourceLocation: sourceLocation)
            return nil
        }
        return path
    }
}
