import Foundation
import Testing

/// Runs the built `sotto` binary, which sits next to the test bundle in the build directory.
struct SottoBinary {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static let url: URL? = {
        var candidates: [URL] = []
        for start in [Bundle.main.bundleURL, Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0])]
            .compactMap({ $0 })
        {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<3 {
                candidates.append(directory.appendingPathComponent("sotto"))
                directory = directory.deletingLastPathComponent()
            }
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// `sotto arguments` with the data directory `home`, `SOTTO_MODEL` unset, and `extra` added to
    /// this process's environment; not started.
    static func process(_ arguments: [String], home: URL, extra: [String: String] = [:]) throws -> Process {
        let binary = try #require(url, "the sotto binary is not next to the test bundle")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SOTTO_HOME"] = home.path
        environment["SOTTO_MODEL"] = nil
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        return process
    }

    /// Runs `sotto arguments` (see `process(_:home:extra:)`) to the end.
    static func run(_ arguments: [String], home: URL, extra: [String: String] = [:]) throws -> Result {
        let process = try process(arguments, home: home, extra: extra)
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }
}
