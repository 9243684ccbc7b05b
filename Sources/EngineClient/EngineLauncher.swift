import Foundation
import FoundationModels

#if canImport(Glibc)
    import Glibc
#endif

/// Finds the `sotto` binary and starts the engine service (`sotto engine`) for a data
/// directory, detached from the app (its own session; it outlives the app, and stops by itself
/// when it has been idle for a while).
///
/// The binary is looked for, in order: `SOTTO_BIN` (a path), `$SOTTO_HOME/bin/sotto` (a link to
/// a release build of Sotto, for a machine's every app), then each directory of `PATH`.
package struct EngineLauncher: Sendable {
    package let home: URL
    package let environment: [String: String]

    /// How long the service waits without clients before it exits.
    package static let idleExitSeconds = 900

    package init(home: URL, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.home = home
        self.environment = environment
    }

    /// The binary to start, or why there is none.
    package enum Lookup: Sendable, Equatable {
        case found(String)
        case missing(String)
    }

    /// The binary to start, or why there is none.
    package func binary() -> Lookup {
        let manager = FileManager.default
        if let configured = environment["SOTTO_BIN"], !configured.isEmpty {
            guard manager.isExecutableFile(atPath: configured) else {
                return .missing("SOTTO_BIN=\(configured) is not an executable file")
            }
            return .found(configured)
        }
        let linked = home.appendingPathComponent("bin/sotto").path
        if manager.isExecutableFile(atPath: linked) { return .found(linked) }
        let path = environment["PATH"] ?? ""
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = String(directory) + "/sotto"
            if manager.isExecutableFile(atPath: candidate) { return .found(candidate) }
        }
        return .missing(
            "no Sotto engine service is running (no socket at \(home.appendingPathComponent("engine.sock").path)) "
                + "and no `sotto` binary was found to start one: SOTTO_BIN is not set, there is no "
                + "\(linked), and PATH (\(path)) has no `sotto`. Build Sotto in release (swift build -c release) "
                + "and set SOTTO_BIN to its .build/release/sotto, or link that binary at \(linked).")
    }

    /// Starts `sotto engine` in the background and returns (without waiting for it to listen).
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/assetsUnavailable(_:)`` when there is
    ///   no binary or it cannot be started.
    package func launch() throws {
        let binary: String
        switch self.binary() {
        case .found(let found): binary = found
        case .missing(let reason):
            throw LanguageModelSession.GenerationError.assetsUnavailable(.init(debugDescription: reason))
        }
        try? FileManager.default.createDirectory(
            at: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let log = home.appendingPathComponent("engine.log").path
        // A shell in a new session starts the service in the background and exits at once: the
        // service is then nobody's child (no zombie in the app), and a ^C in the app's terminal
        // does not reach it.
        let script = "\"$0\" engine --idle-exit \(Self.idleExitSeconds) </dev/null >>\"$1\" 2>&1 &"
        var environment = self.environment
        environment["SOTTO_HOME"] = home.path
        let arguments = ["/bin/sh", "-c", script, binary, log]
        let environmentStrings = environment.map { "\($0.key)=\($0.value)" }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc 2.26+), which Swift's Glibc module does not export.
        let spawnSetSID: Int16 = 0x80
        posix_spawnattr_setflags(&attributes, spawnSetSID)
        var pid: pid_t = 0
        let status = withCStrings(arguments) { argv in
            withCStrings(environmentStrings) { envp in
                posix_spawn(&pid, "/bin/sh", nil, &attributes, argv, envp)
            }
        }
        guard status == 0 else {
            throw LanguageModelSession.GenerationError.assetsUnavailable(
                .init(
                    debugDescription:
                        "The engine service (\(binary) engine) could not be started: \(String(cString: strerror(status)))"
                ))
        }
        var exitStatus: Int32 = 0
        while waitpid(pid, &exitStatus, 0) < 0, errno == EINTR {}
    }

    private func withCStrings<T>(
        _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T
    ) -> T {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
