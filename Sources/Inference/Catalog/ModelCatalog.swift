import Foundation

/// The models Sotto knows, where they live on disk, and how ids and paths resolve to files.
///
/// Files live in `$SOTTO_HOME/models/<id>.gguf` (`SOTTO_HOME` defaults to `~/.sotto`). Anything
/// that takes a model accepts either a catalog id or the path of any GGUF file:
///
/// ```swift
/// let url = try ModelCatalog.resolve("smollm2-135m")        // ~/.sotto/models/smollm2-135m.gguf
/// let mine = try ModelCatalog.resolve("~/models/x.gguf")   // any GGUF file
/// let chosen = try ModelCatalog.resolve(ModelCatalog.defaultModel)  // SOTTO_MODEL, else the default id
/// ```
///
/// Every lookup takes the environment as a parameter (defaulting to the process's) so tests and
/// servers can resolve against another `SOTTO_HOME`.
public enum ModelCatalog {
    public typealias Environment = [String: String]

    /// Every known model, the default first.
    public static let models: [CatalogModel] = CatalogModel.all

    /// The model used when `SOTTO_MODEL` is not set.
    public static let defaultModelID = "qwen2.5-coder-1.5b"

    /// Ids of every known model, the default first.
    public static var knownIDs: [String] { models.map(\.id) }

    /// The catalog entry with this id.
    public static func model(id: String) -> CatalogModel? {
        models.first { $0.id == id }
    }

    /// The model to use when none is named: `SOTTO_MODEL` (an id or a path) when set and not
    /// empty, else `defaultModelID`. Pass it to `resolve(_:)`.
    public static var defaultModel: String { defaultModel(environment: ProcessInfo.processInfo.environment) }

    /// `defaultModel` under the given environment.
    public static func defaultModel(environment: Environment) -> String {
        let configured = environment["SOTTO_MODEL"]?.trimmingCharacters(in: .whitespaces) ?? ""
        return configured.isEmpty ? defaultModelID : configured
    }

    // MARK: Locations

    /// `$SOTTO_HOME`, or `~/.sotto`.
    public static func home(environment: Environment = ProcessInfo.processInfo.environment) -> URL {
        if let home = environment["SOTTO_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: expandingTilde(home, environment: environment), isDirectory: true)
        }
        return URL(fileURLWithPath: userHome(environment), isDirectory: true).appendingPathComponent(
            ".sotto", isDirectory: true)
    }

    /// `$SOTTO_HOME/models`, where model files live.
    public static func modelsDirectory(environment: Environment = ProcessInfo.processInfo.environment) -> URL {
        home(environment: environment).appendingPathComponent("models", isDirectory: true)
    }

    /// `$SOTTO_HOME/cache/pip`, where downloaded wheels wait to be assembled.
    public static func downloadCache(environment: Environment = ProcessInfo.processInfo.environment) -> URL {
        home(environment: environment).appendingPathComponent("cache/pip", isDirectory: true)
    }

    /// Where the model with this id lives (whether or not it is there yet).
    public static func fileURL(forID id: String, environment: Environment = ProcessInfo.processInfo.environment) -> URL
    {
        modelsDirectory(environment: environment).appendingPathComponent(id + ".gguf")
    }

    // MARK: Resolving

    /// The file a catalog id or a path names.
    ///
    /// A known id resolves to `$SOTTO_HOME/models/<id>.gguf`; something containing `/`, starting
    /// with `~` or ending in `.gguf` is a path (`~` expanded). The file must exist.
    ///
    /// - Throws: `ModelCatalogError.notDownloaded` (its message says which `sotto model pull`
    ///   to run), `.fileNotFound` for a missing path, `.unknownModel` listing the known ids.
    public static func resolve(
        _ idOrPath: String, environment: Environment = ProcessInfo.processInfo.environment
    ) throws(ModelCatalogError) -> URL {
        let name = idOrPath.trimmingCharacters(in: .whitespaces)
        if model(id: name) != nil {
            let url = fileURL(forID: name, environment: environment)
            guard isFile(url.path) else { throw .notDownloaded(id: name, path: url.path) }
            return url
        }
        if looksLikePath(name) {
            let path = expandingTilde(name, environment: environment)
            guard isFile(path) else { throw .fileNotFound(path: path) }
            return URL(fileURLWithPath: path).standardizedFileURL
        }
        throw .unknownModel(name, known: knownIDs)
    }

    /// `resolve(defaultModel(environment:))`.
    public static func resolveDefault(environment: Environment = ProcessInfo.processInfo.environment)
        throws(ModelCatalogError) -> URL
    {
        try resolve(defaultModel(environment: environment), environment: environment)
    }

    /// Whether `name` is meant as a path rather than an id.
    public static func looksLikePath(_ name: String) -> Bool {
        name.contains("/") || name.hasPrefix("~") || name.hasSuffix(".gguf")
    }

    // MARK: Helpers

    static func userHome(_ environment: Environment) -> String {
        environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    }

    static func expandingTilde(_ path: String, environment: Environment) -> String {
        if path == "~" { return userHome(environment) }
        if path.hasPrefix("~/") { return userHome(environment) + path.dropFirst() }
        return path
    }

    static func isFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    /// Size of the file at `url`, or nil if there is none.
    static func fileSize(_ url: URL) -> Int? {
        guard isFile(url.path), let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else {
            return nil
        }
        return (attributes[.size] as? NSNumber)?.intValue
    }
}
