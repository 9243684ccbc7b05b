/// A session's dynamic profile, and the profile that was active at the last request.
///
/// `@unchecked Sendable`: the profile is an app value that need not be `Sendable`, and the
/// active profile's hooks are closures. Both are only touched by the request the session is
/// running: a session runs one request at a time (a second throws `concurrentRequests` before it
/// gets here), and the lock it takes to start and end a request orders one request's writes
/// before the next one's reads.
package final class ProfileHolder: @unchecked Sendable {
    private let profile: any LanguageModelSession.DynamicProfile
    /// The profile active at the last request: its path, and its deactivation hooks.
    private var active: (path: [String], onDeactivate: [ResolvedProfile.Hook])?

    package init(_ profile: any LanguageModelSession.DynamicProfile) {
        self.profile = profile
    }

    /// The profile as it resolves now (its body evaluated with the session's properties).
    package func resolve(with properties: SessionPropertyValues) -> ResolvedProfile {
        SessionPropertyValues.$current.withValue(properties) {
            var resolved = ResolvedProfile()
            profile.resolve(into: &resolved)
            return resolved
        }
    }

    /// Makes `resolved` the active profile; when another one was active, runs its deactivation
    /// hooks, then the new one's activation hooks.
    package func activate(_ resolved: ResolvedProfile) async throws {
        guard active?.path != resolved.path else { return }
        let previous = active
        active = (resolved.path, resolved.onDeactivate)
        for hook in previous?.onDeactivate ?? [] { try await hook() }
        for hook in resolved.onActivate { try await hook() }
    }
}

extension LanguageModelSession {
    /// A session whose configuration a dynamic profile decides before every request (27 SDK),
    /// continuing from `history`.
    ///
    /// ```swift
    /// let session = LanguageModelSession(profile: TutorProfile())
    /// ```
    public convenience init(
        profile: some DynamicProfile, history: some Collection<Transcript.Entry> = [Transcript.Entry]()
    ) {
        self.init(
            binding: ModelBinding(SystemLanguageModel.default), tools: [],
            transcript: Transcript(entries: history.filter { if case .instructions = $0 { false } else { true } }),
            profile: ProfileHolder(profile))
    }

    /// A session on `model` whose instructions and tools dynamic instructions give before every
    /// request (27 SDK), continuing from `history`.
    public convenience init(
        model: some LanguageModel = SystemLanguageModel.default, dynamicInstructions: some DynamicInstructions,
        history: some Collection<Transcript.Entry> = [Transcript.Entry]()
    ) {
        self.init(profile: Profile { dynamicInstructions }.model(model), history: history)
    }

    /// What a request runs with: the session's model and tools, or what its profile resolves to.
    package struct RequestSetup {
        var binding: ModelBinding
        var tools: [any Tool]
        /// What the profile set; nil for a session without one.
        var profile: ResolvedProfile?
    }

    /// Resolves the session's profile for a request that starts from `transcript`: runs the
    /// activation hooks when the active profile changed, and puts the profile's instructions
    /// (with its tools' definitions) at the head of the transcript.
    package func prepare(_ transcript: inout Transcript) async throws -> RequestSetup {
        guard let profile else { return RequestSetup(binding: binding, tools: tools, profile: nil) }
        let current = profile.resolve(with: properties)
        try await profile.activate(current)
        var resolved = ResolvedInstructions()
        SessionPropertyValues.$current.withValue(properties) { current.instructions?.resolve(into: &resolved) }
        let tools = resolved.tools
        let instructions = Transcript.Instructions(
            segments: resolved.segments,
            toolDefinitions: tools.filter(\.includesSchemaInInstructions).map { Transcript.ToolDefinition(tool: $0) })
        var entries = transcript.entries
        if case .instructions? = entries.first { entries.removeFirst() }
        if !instructions.segments.isEmpty || !instructions.toolDefinitions.isEmpty {
            entries.insert(.instructions(instructions), at: 0)
        }
        transcript = Transcript(entries: entries)
        let binding = current.model.map { ModelBinding($0) } ?? self.binding
        return RequestSetup(binding: binding, tools: tools, profile: current)
    }
}
