import Foundation

extension SystemLanguageModel {
    /// A local model: an id from Sotto's catalog, or the path of a GGUF file.
    ///
    /// Ids name files in `~/.sotto/models` (or `$SOTTO_HOME/models`): `.id("smollm2-135m")` is
    /// `~/.sotto/models/smollm2-135m.gguf`.
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
        public static let defaultID = "qwen2.5-coder-1.5b"

        public var description: String {
            switch source {
            case .id(let id): id
            case .path(let path): path
            }
        }

        /// Where a model is, or why there is none.
        package enum Resolution: Equatable, Sendable {
            /// `SOTTO_MODEL` turns the model off.
            case disabled
            /// The file is not there.
            case missing(path: String)
            /// The file, and its size in bytes.
            case file(path: String, size: UInt64)

            package var explanation: String {
                switch self {
                case .disabled: "The model is turned off (SOTTO_MODEL=off)."
                case .missing(let path): "The model file \(path) does not exist; download it with `sotto model pull`."
                case .file(let path, _): "The model file is \(path)."
                }
            }
        }

        /// Values of `SOTTO_MODEL` that turn the model off.
        package static let disablingValues: Set<String> = ["off", "none", "disabled", "0", "false"]

        /// The model `model` names, or (for nil) the one `SOTTO_MODEL` configures, located on disk.
        package static func resolve(
            _ model: LocalModel?, environment: [String: String] = ProcessInfo.processInfo.environment
        ) -> Resolution {
            let chosen: LocalModel
            if let model {
                chosen = model
            } else if let configured = environment["SOTTO_MODEL"]?.trimmingCharacters(in: .whitespaces),
                !configured.isEmpty
            {
                if disablingValues.contains(configured.lowercased()) { return .disabled }
                let looksLikePath = configured.contains("/") || configured.hasSuffix(".gguf")
                chosen = looksLikePath ? .path(configured) : .id(configured)
            } else {
                chosen = .id(defaultID)
            }
            let path = chosen.filePath(environment: environment)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType != .typeDirectory,
                let size = (attributes[.size] as? NSNumber)?.uint64Value
            else { return .missing(path: path) }
            return .file(path: path, size: size)
        }

        /// The file this model is, given the environment (for `SOTTO_HOME` and `HOME`).
        package func filePath(environment: [String: String]) -> String {
            let home = environment["HOME"] ?? NSHomeDirectory()
            switch source {
            case .path(let path):
                if path == "~" { return home }
                if path.hasPrefix("~/") { return home + path.dropFirst() }
                return path
            case .id(let id):
                let sottoHome = environment["SOTTO_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.sotto"
                return sottoHome + "/models/" + id + ".gguf"
            }
        }
    }
}
