import Foundation
import ModelStore
import Testing

/// A fresh data directory (`SOTTO_HOME`) with an empty `models/`, removed when released.
public final class TemporaryHome {
    /// The directory.
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sotto-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: url.appendingPathComponent("models"), withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// `models/`.
    public var models: URL { url.appendingPathComponent("models") }

    /// The store of this directory, with `configuredModel` standing for `SOTTO_MODEL`.
    public func store(configuredModel: String? = nil) -> ModelStore {
        ModelStore(home: url, configuredModel: configuredModel)
    }

    /// A file of `size` zero bytes in `models/` (sparse, so instant).
    public func file(_ name: String, size: Int) throws {
        let path = models.appendingPathComponent(name).path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
    }
}
