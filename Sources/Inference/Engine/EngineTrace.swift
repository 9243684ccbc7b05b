import Foundation

/// What the engine does, one line per forward step and per finished request, on standard error
/// when `SOTTO_ENGINE_TRACE` is set (for finding where a scenario's time goes: rows and members
/// of each step and how long it took; each request's prompt, reused and generated tokens, forward
/// steps, drafts, prefill and decode times).
enum EngineTrace {
    static let isOn = ProcessInfo.processInfo.environment["SOTTO_ENGINE_TRACE"] != nil

    static func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
