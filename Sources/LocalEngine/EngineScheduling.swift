import Foundation
import FoundationModels
import Inference

/// How the engine in this process schedules a request, for Sotto's server: the request's
/// metadata (`LanguageModelSession.respond(…, metadata:)`) carries its priority, its user and a
/// staleness key, and the server marks keys stale when what they were for moved on.
///
/// ```swift
/// let metadata = EngineScheduling.metadata(priority: "suggestion", user: userID, staleness: "suggest/\(channel)/\(userID)")
/// let reply = try await session.respond(to: prompt, metadata: metadata)
/// // A newer message arrived in the channel: drop the old suggestion, queued or running.
/// EngineScheduling.markStale("suggest/\(channel)/\(userID)")
/// ```
///
/// - `sotto.priority`: `interactive` (the default: a person is waiting — an assistant answer,
///   an API call, a writing tool, a translation), `suggestion`, or `background` (titles, smart
///   replies). Higher first; one KV slot is always kept for interactive requests.
/// - `sotto.user`: requests of equal priority are shared fairly between users.
/// - `sotto.staleness`: a newer request with the same key supersedes an older one (dropped if
///   it has not started, stopped if it has), as does ``markStale(_:)``.
///
/// Cancelling the request's task stops it within a token, as before.
public struct EngineScheduling: Sendable, Equatable {
    public static let priorityKey = "sotto.priority"
    public static let userKey = "sotto.user"
    public static let stalenessKey = "sotto.staleness"

    var priority: GenerationPriority = .interactive
    var user: String?
    var stalenessKey: String?

    /// Reads the keys above from a request's metadata; what is missing or unknown keeps the
    /// default.
    init(metadata: [String: GeneratedContent]) {
        func text(_ key: String) -> String? { try? metadata[key]?.value(String.self) }
        if let name = text(Self.priorityKey), let priority = GenerationPriority(name: name) {
            self.priority = priority
        }
        user = text(Self.userKey)
        stalenessKey = text(Self.stalenessKey)
    }

    /// The metadata of a request with this priority (`interactive`, `suggestion`, `background`),
    /// user and staleness key.
    public static func metadata(
        priority: String, user: String? = nil, staleness: String? = nil
    ) -> [String: any ConvertibleToGeneratedContent] {
        var metadata: [String: any ConvertibleToGeneratedContent] = [priorityKey: priority]
        if let user { metadata[userKey] = user }
        if let staleness { metadata[stalenessKey] = staleness }
        return metadata
    }

    /// Every request with staleness key `key` so far, on every model this process runs, is no
    /// longer wanted.
    public static func markStale(_ key: String) {
        LocalEngineHost.shared.markStale(key: key)
    }

    /// What the engine of each model loaded in this process is doing: requests queued and
    /// running, the last batch, tokens per second (for `/api/health` or a metrics endpoint).
    public static var status: [EngineStatus] { LocalEngineHost.shared.statuses }

    /// Whether engines verify drafts copied from each sequence's own tokens (prompt lookup);
    /// `SOTTO_SPECULATION=off` turns it off, for benchmarks (the output is the same).
    static var speculationIsOn: Bool { ProcessInfo.processInfo.environment["SOTTO_SPECULATION"] != "off" }
}

public typealias EngineStatus = Inference.EngineStatus
