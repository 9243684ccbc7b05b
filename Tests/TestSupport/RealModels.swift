import Foundation
import ModelStore
import Testing

/// The real models tests run, found through `ModelStore` in this process's data directory
/// (`SOTTO_HOME`, default `~/.sotto`), as every `sotto` command finds them.
///
/// One policy for a model that is not there: under `scripts/test` (CI), which sets
/// `SOTTO_REQUIRE_MODELS=1`, the test fails; anywhere else it is skipped, and the skip says which
/// file is missing and the command that gets it.
///
/// ```swift
/// @Test(.onTestThreads) func decodes() throws {
///     let path = try RealModels.path(RealModels.smollm)   // fails or skips when it is missing
/// }
/// ```
public enum RealModels {
    /// The tiny model (98 MB), for anything that needs a real engine.
    public static let smollm = "smollm2-135m"
    /// The small Qwen model (491 MB): tool calls, reply suggestions.
    public static let qwen = "qwen2.5-coder-0.5b"
    /// The default model (1.1 GB); tests only use it when it happens to be there.
    public static let qwenLarge = "qwen2.5-coder-1.5b"
    /// Whisper base (145 MB): the speech engine's tests.
    public static let whisperBase = "whisper-base"

    /// The store of this process (`SOTTO_HOME`).
    public static var store: ModelStore { ModelStore() }

    /// Whether a missing model is a failure (`SOTTO_REQUIRE_MODELS=1`, set by `scripts/test`)
    /// rather than a skip.
    public static var areRequired: Bool { ProcessInfo.processInfo.environment["SOTTO_REQUIRE_MODELS"] == "1" }

    /// Whether catalog model `id` is downloaded (for picking test arguments; a test that needs
    /// a model asks for it with ``file(_:sourceLocation:)``).
    public static func isPresent(_ id: String) -> Bool { (try? store.resolve(id: id)) != nil }

    /// The downloaded file of catalog model `id`.
    ///
    /// When it is missing, throws (a failure) under `SOTTO_REQUIRE_MODELS=1`, and otherwise
    /// cancels the running test, which Swift Testing reports as skipped, with the reason.
    public static func file(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ModelFile {
        do {
            return try store.resolve(id: id)
        } catch {
            guard areRequired else {
                // A warning as well: Swift Testing reports a cancelled case of a parameterized
                // test as passed, and a skip must never be silent.
                Issue.record("skipped: \(error)", severity: .warning, sourceLocation: sourceLocation)
                try Test.cancel("skipped: \(error)", sourceLocation: sourceLocation)
            }
            throw MissingModel(description: "\(error) (SOTTO_REQUIRE_MODELS=1: a missing model is a failure)")
        }
    }

    /// The path of ``file(_:sourceLocation:)``.
    public static func path(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try file(id, sourceLocation: sourceLocation).path
    }
}

/// A model a test needs is not downloaded (and `SOTTO_REQUIRE_MODELS=1` makes that a failure).
public struct MissingModel: Error, CustomStringConvertible {
    public let description: String
}
