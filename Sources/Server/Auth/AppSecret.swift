import CSodium
import Foundation
import HTTPCore

/// The secret that signs tokens: `SOTTO_SECRET` when set, else the file `secret` in the data
/// directory (`ModelStore.home`), created on first use with 32 random bytes (hex) and mode 0600.
/// It never leaves the server.
public enum AppSecret {
    /// Shortest accepted secret, in bytes.
    public static let minimumLength = 16

    /// Loads or creates the secret of the data directory `home`.
    public static func load(
        home: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> String {
        if let fromEnvironment = environment["SOTTO_SECRET"], !fromEnvironment.isEmpty {
            guard fromEnvironment.utf8.count >= minimumLength else {
                throw HTTPServerError(description: "SOTTO_SECRET must be at least \(minimumLength) bytes")
            }
            return fromEnvironment
        }
        let path = home + "/secret"
        if let existing = try read(path) { return existing }
        do {
            try FileManager.default.createDirectory(
                atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw HTTPServerError(description: "cannot create \(home): \(error.localizedDescription)")
        }
        precondition(sodium_init() >= 0, "libsodium failed to initialise")
        var bytes = [UInt8](repeating: 0, count: 32)
        randombytes_buf(&bytes, bytes.count)
        let secret = bytes.map { String(format: "%02x", $0) }.joined()
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if descriptor < 0 {
            // Someone else created it first: use theirs.
            if errno == EEXIST, let existing = try read(path) { return existing }
            throw HTTPServerError(description: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        let line = Array((secret + "\n").utf8)
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        fsync(descriptor)
        close(descriptor)
        guard written == line.count else { throw HTTPServerError(description: "cannot write \(path)") }
        return secret
    }

    private static func read(_ path: String) throws -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        // Keep it owner-only even if someone loosened it.
        if let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int,
            mode & 0o077 != 0
        {
            chmod(path, 0o600)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HTTPServerError(description: "cannot read \(path)")
        }
        let secret = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard secret.utf8.count >= minimumLength else {
            throw HTTPServerError(description: "\(path) holds a secret shorter than \(minimumLength) bytes")
        }
        return secret
    }
}
