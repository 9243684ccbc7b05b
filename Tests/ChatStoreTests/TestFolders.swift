import Foundation

/// Temporary folders for one test process, all removed when the process exits.
enum TestFolders {
    private static let parent: String = {
        let path = NSTemporaryDirectory() + "sotto-chatstore-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit {
            try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "sotto-chatstore-tests-\(getpid())")
        }
        return path
    }()

    /// A new empty folder.
    static func make(_ prefix: String) throws -> String {
        let path = parent + "/" + prefix + "-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
