import EngineService
import Foundation
import LocalEngine
import ModelStore

/// `sotto engine`: the engine service apps reach through `SystemLanguageModel`.
struct EngineCommand: Command {
    static let name = "engine"
    static let summary = "Run the engine service that apps' SystemLanguageModel talks to."
    static let usage = """
        usage: sotto engine [--socket PATH] [--idle-exit SECONDS]

        Serves Sotto's engine to every app of this user over a Unix socket, as Apple's framework
        talks to a system service: models load once, on the first request, and are shared.
        Apps start it by themselves when it is not running (they find this binary through
        SOTTO_BIN, $SOTTO_HOME/bin/sotto, then PATH), so running it by hand is optional.

          --socket PATH        where to listen (default $SOTTO_HOME/engine.sock; owner-only)
          --idle-exit SECONDS  stop after this long without connections (default: never)
        """
    static let valueOptions: Set<String> = ["socket", "idle-exit"]
    static let switchOptions: Set<String> = []

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let store = ModelStore()
        try store.createHome()
        let idle = try arguments.int("idle-exit", default: 0) ?? 0
        guard idle >= 0 else { throw UsageError(description: "--idle-exit must be 0 or more seconds") }
        let server = EngineServer(
            home: store.home, socketPath: arguments.string("socket"), engine: .shared,
            idleExit: idle > 0 ? .seconds(idle) : nil)
        do {
            try server.start()
        } catch EngineServer.StartError.alreadyRunning(let detail) {
            print("engine: \(detail)")
            return 0
        }
        // Written straight to the descriptor: a log file is not a terminal, and buffered output
        // would only appear at exit.
        FileHandle.standardOutput.write(
            Data("engine: listening on \(server.socketPath) (pid \(ProcessInfo.processInfo.processIdentifier))\n".utf8))
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}
