/// A stand-in suggester with fixed replies, for trying the web app (and testing it) without a
/// model: `sotto serve --canned-suggestions`.
public struct CannedSuggester: ReplySuggester {
    /// Pretend generation time, so the "Suggesting replies…" state shows.
    public var delay: Duration

    public init(delay: Duration = .milliseconds(300)) {
        self.delay = delay
    }

    public func suggestions(for context: ReplyContext) async throws -> [String]? {
        try await Task.sleep(for: delay)
        guard let last = context.recentMessages.last else { return nil }
        if last.text.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("?") {
            return ["Yes, sounds good!", "Not sure yet", "Let me check"]
        }
        return ["Got it", "Thanks!", "Talk soon"]
    }
}
