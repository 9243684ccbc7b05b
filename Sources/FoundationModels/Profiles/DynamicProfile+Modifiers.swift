/// What a profile resolved to for one request: the active ``LanguageModelSession/Profile``'s
/// instructions, and what its modifiers set.
package struct ResolvedProfile {
    /// A hook taking nothing.
    package typealias Hook = () async throws -> Void

    /// The instructions and tools of the active profile.
    package var instructions: AnyDynamicInstructions?
    /// Which profile is active: the choices and types on the way to it (a change between
    /// requests is a deactivation and an activation).
    package var path: [String] = []

    package var model: (any LanguageModel)?
    package var temperature: Double??
    package var samplingMode: GenerationOptions.SamplingMode??
    package var maximumResponseTokens: Int??
    package var reasoningLevel: ContextOptions.ReasoningLevel??
    package var toolCallingMode: GenerationOptions.ToolCallingMode??
    package var errorPolicy: TranscriptErrorHandlingPolicy??
    /// History transforms, outermost first (the order they run in).
    package var historyTransforms: [([Transcript.Entry]) -> [Transcript.Entry]] = []

    package var onActivate: [Hook] = []
    package var onDeactivate: [Hook] = []
    package var onPrompt: [(Transcript.Prompt) async throws -> Void] = []
    package var onResponse: [(Transcript.Response) async throws -> Void] = []
    package var onReasoning: [(Transcript.Reasoning) async throws -> Void] = []
    package var onToolCall: [(Transcript.ToolCall) async throws -> Void] = []
    package var onToolOutput: [(Transcript.ToolCall, Transcript.ToolOutput) async throws -> Void] = []

    package init() {}

    /// `options` with what the profile sets filled in where the request left it unset.
    package func applied(to options: GenerationOptions) -> GenerationOptions {
        var options = options
        if options.temperature == nil, let temperature { options.temperature = temperature }
        if options.samplingMode == nil, let samplingMode { options.samplingMode = samplingMode }
        if options.maximumResponseTokens == nil, let maximumResponseTokens {
            options.maximumResponseTokens = maximumResponseTokens
        }
        if options.toolCallingMode == nil, let toolCallingMode { options.toolCallingMode = toolCallingMode }
        return options
    }

    /// `options` with the profile's reasoning level where the request set none.
    package func applied(to options: ContextOptions) -> ContextOptions {
        var options = options
        if options.reasoningLevel == nil, let reasoningLevel { options.reasoningLevel = reasoningLevel }
        return options
    }

    /// The entries the model is shown: `entries` through every history transform.
    package func transformed(_ entries: [Transcript.Entry]) -> [Transcript.Entry] {
        historyTransforms.reduce(entries) { entries, transform in transform(entries) }
    }
}

/// A modifier that sets part of the configuration (the modifiers of this module).
package protocol ProfileSettingModifier: LanguageModelSession.DynamicProfileModifier {
    func apply(to resolved: inout ResolvedProfile)
}

extension ProfileSettingModifier {
    package func body(content: Content) -> Never {
        preconditionFailure("a setting modifier is applied directly")
    }
}

/// One setting of the configuration, as a modifier.
package struct SettingModifier: ProfileSettingModifier {
    // Called only by the session running the request the profile is resolved for.
    nonisolated(unsafe) let set: (inout ResolvedProfile) -> Void

    package func apply(to resolved: inout ResolvedProfile) {
        set(&resolved)
    }
}

extension LanguageModelSession.DynamicProfile {
    private func setting(_ set: @escaping (inout ResolvedProfile) -> Void)
        -> LanguageModelSession.ModifiedDynamicProfile<Self, SettingModifier>
    {
        modifier(SettingModifier(set: set))
    }

    // MARK: Configuring the model

    /// Sets the model.
    public func model(_ model: any LanguageModel) -> some LanguageModelSession.DynamicProfile {
        setting { $0.model = model }
    }

    /// Sets the model temperature.
    public func temperature(_ temperature: Double?) -> some LanguageModelSession.DynamicProfile {
        setting { $0.temperature = temperature }
    }

    /// Sets the sampling mode.
    public func samplingMode(_ samplingMode: GenerationOptions.SamplingMode?)
        -> some LanguageModelSession.DynamicProfile
    {
        setting { $0.samplingMode = samplingMode }
    }

    /// Sets the reasoning level.
    public func reasoningLevel(_ reasoningLevel: ContextOptions.ReasoningLevel?)
        -> some LanguageModelSession.DynamicProfile
    {
        setting { $0.reasoningLevel = reasoningLevel }
    }

    /// Sets the maximum number of tokens in a response.
    public func maximumResponseTokens(_ maximumResponseTokens: Int?) -> some LanguageModelSession.DynamicProfile {
        setting { $0.maximumResponseTokens = maximumResponseTokens }
    }

    /// Sets whether the model may, must or must not call tools.
    public func toolCallingMode(_ toolCallingMode: GenerationOptions.ToolCallingMode?)
        -> some LanguageModelSession.DynamicProfile
    {
        setting { $0.toolCallingMode = toolCallingMode }
    }

    /// Sets what a failed request leaves in the transcript.
    public func transcriptErrorHandlingPolicy(_ policy: TranscriptErrorHandlingPolicy?)
        -> some LanguageModelSession.DynamicProfile
    {
        setting { $0.errorPolicy = policy }
    }

    // MARK: Transforming the history

    /// Transforms the transcript the model is shown, before every call of the model: the
    /// session's own transcript stays as it is.
    ///
    /// ```swift
    /// Profile { Instructions("Be brief.") }
    ///     .historyTransform { history in Array(history.suffix(20)) }
    /// ```
    public func historyTransform(_ transform: @escaping ([Transcript.Entry]) -> [Transcript.Entry])
        -> some LanguageModelSession.DynamicProfile
    {
        setting { $0.historyTransforms.append(transform) }
    }

    // MARK: Observing the life cycle

    /// Runs `action` when this profile becomes the active one.
    public func onActivate(perform action: nonisolated(nonsending) sending @escaping () async throws -> Void)
        -> some LanguageModelSession.DynamicProfile
    {
        nonisolated(unsafe) let action = action
        return setting { $0.onActivate.append(action) }
    }

    /// Runs `action` when this profile stops being the active one.
    public func onDeactivate(perform action: nonisolated(nonsending) sending @escaping () async throws -> Void)
        -> some LanguageModelSession.DynamicProfile
    {
        nonisolated(unsafe) let action = action
        return setting { $0.onDeactivate.append(action) }
    }

    /// Runs `action` before the model is called for a request. An error it throws is the
    /// request's.
    public func onPrompt(perform action: nonisolated(nonsending) sending @escaping () async throws -> Void)
        -> some LanguageModelSession.DynamicProfile
    {
        nonisolated(unsafe) let action = action
        return setting { $0.onPrompt.append({ _ in try await action() }) }
    }

    /// Runs `action` with the prompt, before the model is called for a request.
    public func onPrompt(
        perform action: nonisolated(nonsending) sending @escaping (Transcript.Prompt) async throws -> Void
    ) -> some LanguageModelSession.DynamicProfile {
        nonisolated(unsafe) let action = action
        return setting { $0.onPrompt.append(action) }
    }

    /// Runs `action` after the profile produced a response.
    public func onResponse(perform action: nonisolated(nonsending) sending @escaping () async throws -> Void)
        -> some LanguageModelSession.DynamicProfile
    {
        nonisolated(unsafe) let action = action
        return setting { $0.onResponse.append({ _ in try await action() }) }
    }

    /// Runs `action` with the response entry, after the profile produced it.
    public func onResponse(
        perform action: nonisolated(nonsending) sending @escaping (Transcript.Response) async throws -> Void
    ) -> some LanguageModelSession.DynamicProfile {
        nonisolated(unsafe) let action = action
        return setting { $0.onResponse.append(action) }
    }

    /// Runs `action` whenever the model produces reasoning (models with the `reasoning`
    /// capability).
    public func onReasoning(perform action: nonisolated(nonsending) sending @escaping () async throws -> Void)
        -> some LanguageModelSession.DynamicProfile
    {
        nonisolated(unsafe) let action = action
        return setting { $0.onReasoning.append({ _ in try await action() }) }
    }

    /// Runs `action` with the reasoning entry, whenever the model produces reasoning.
    public func onReasoning(
        perform action: nonisolated(nonsending) sending @escaping (Transcript.Reasoning) async throws -> Void
    ) -> some LanguageModelSession.DynamicProfile {
        nonisolated(unsafe) let action = action
        return setting { $0.onReasoning.append(action) }
    }

    /// Runs `action` whenever the model calls a tool, before the tool runs.
    public func onToolCall(perform action: nonisolated(nonsending) sending @escaping () async throws -> Void)
        -> some LanguageModelSession.DynamicProfile
    {
        nonisolated(unsafe) let action = action
        return setting { $0.onToolCall.append({ _ in try await action() }) }
    }

    /// Runs `action` with the call whenever the model calls a tool, before the tool runs.
    public func onToolCall(
        perform action: nonisolated(nonsending) sending @escaping (Transcript.ToolCall) async throws -> Void
    ) -> some LanguageModelSession.DynamicProfile {
        nonisolated(unsafe) let action = action
        return setting { $0.onToolCall.append(action) }
    }

    /// Runs `action` whenever a tool returned its output.
    public func onToolOutput(perform action: nonisolated(nonsending) sending @escaping () async throws -> Void)
        -> some LanguageModelSession.DynamicProfile
    {
        nonisolated(unsafe) let action = action
        return setting { $0.onToolOutput.append({ _, _ in try await action() }) }
    }

    /// Runs `action` with the call and its output whenever a tool returned.
    public func onToolOutput(
        perform action:
            nonisolated(nonsending) sending @escaping (Transcript.ToolCall, Transcript.ToolOutput)
            async throws -> Void
    ) -> some LanguageModelSession.DynamicProfile {
        nonisolated(unsafe) let action = action
        return setting { $0.onToolOutput.append(action) }
    }
}
