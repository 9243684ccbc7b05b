import Foundation

/// What the engine does, one line per submitted request, per forward step and per finished
/// request, on standard error when `SOTTO_ENGINE_TRACE` is set, each stamped with the seconds
/// since the trace began (for finding where a scenario's time goes: when requests arrive, rows
/// and members of each step and how long it took, the gaps between steps; each request's
/// prompt, reused and generated tokens, forward steps, drafts, prefill and decode times).
enum EngineTrace {
    static let isOn = ProcessInfo.processInfo.environment["SOTTO_ENGINE_TRACE"] != nil
    private static let start = ContinuousClock.now

    static func write(_ line: String) {
        let stamp = String(format: "[%.3f] ", (ContinuousClock.now - start).inSeconds)
        FileHandle.standardError.write(Data((stamp + line + "\n").utf8))
    }
}
