import Observation
import Synchronization

/// A conversation with a language model: instructions fixed at creation, then requests and
/// responses, recorded in a ``transcript``.
///
/// ```swift
/// let session = LanguageModelSession(instructions: "You suggest short replies to messages.")
/// let response = try await session.respond(to: "Want to go hiking on Saturday?")
/// print(response.content)
/// ```
///
/// A session runs on any ``LanguageModel``: ``SystemLanguageModel`` (the default), or a model of
/// your own with its executor. It answers one request at a time: a request made while another is
/// running throws ``GenerationError/concurrentRequests(_:)``. If a request fails, the transcript
/// is left as it was before it (or keeps what the request produced, under
/// ``TranscriptErrorHandlingPolicy/preserveTranscript``); a cancelled request keeps its prompt
/// and partial response.
public final class LanguageModelSession: Sendable, Observable {
    /// The model the session uses, with its executor (for a session with a profile, the model
    /// of profiles that set none).
    package let binding: ModelBinding
    /// The tools the model may call (a session with a profile takes them from the profile).
    package let tools: [any Tool]
    /// The dynamic profile the session resolves before every request, if it was made with one.
    package let profile: ProfileHolder?

    /// The session's properties (27 SDK): its history, and the custom properties profiles,
    /// dynamic instructions and tools read with ``SessionProperty``.
    public let properties: SessionPropertyValues

    private let state: Mutex<State>
    private let registrar = ObservationRegistrar()

    private struct State {
        var transcript: Transcript
        var isResponding = false
        var usage = Usage.zero
        var errorPolicy: TranscriptErrorHandlingPolicy?
        /// A write to ``transcript`` came while a request was running (and was not applied).
        var writtenWhileResponding = false
    }

    /// The most tool-calling rounds in one request; after that the model must respond.
    package static let maximumToolRounds = 8

    // MARK: Creating a session on the system model (26 SDK)

    /// A session with instructions given as a string.
    @_disfavoredOverload
    public convenience init(model: SystemLanguageModel = .default, tools: [any Tool] = [], instructions: String? = nil)
    {
        self.init(model: model, tools: tools, instructions: instructions.map { Instructions($0) })
    }

    /// A session with instructions listed in a builder closure.
    public convenience init(
        model: SystemLanguageModel = .default, tools: [any Tool] = [],
        @InstructionsBuilder instructions: () throws -> Instructions
    ) rethrows {
        self.init(binding: ModelBinding(model), tools: tools, instructions: try instructions())
    }

    /// A session with instructions.
    public convenience init(
        model: SystemLanguageModel = .default, tools: [any Tool] = [], instructions: Instructions? = nil
    ) {
        self.init(binding: ModelBinding(model), tools: tools, instructions: instructions)
    }

    /// A session that continues from a transcript (whose first entry, if it is instructions,
    /// gives the session's instructions).
    public convenience init(model: SystemLanguageModel = .default, tools: [any Tool] = [], transcript: Transcript) {
        self.init(binding: ModelBinding(model), tools: tools, transcript: transcript)
    }

    // MARK: Creating a session on any model (27 SDK)

    /// A session on `model` with instructions given as a string.
    @_disfavoredOverload
    public convenience init(model: some LanguageModel, tools: [any Tool] = [], instructions: String? = nil) {
        self.init(binding: ModelBinding(model), tools: tools, instructions: instructions.map { Instructions($0) })
    }

    /// A session on `model` with instructions listed in a builder closure.
    public convenience init<Failure: Swift.Error>(
        model: some LanguageModel, tools: [any Tool] = [],
        @InstructionsBuilder instructions: () throws(Failure) -> Instructions
    ) throws(Failure) {
        self.init(binding: ModelBinding(model), tools: tools, instructions: try instructions())
    }

    /// A session on `model` with instructions.
    public convenience init(model: some LanguageModel, tools: [any Tool] = [], instructions: Instructions? = nil) {
        self.init(binding: ModelBinding(model), tools: tools, instructions: instructions)
    }

    /// A session on `model` that continues from a transcript.
    public convenience init(model: some LanguageModel, tools: [any Tool] = [], transcript: Transcript) {
        self.init(binding: ModelBinding(model), tools: tools, transcript: transcript)
    }

    private convenience init(binding: ModelBinding, tools: [any Tool], instructions: Instructions?) {
        var entries: [Transcript.Entry] = []
        if instructions != nil || !tools.isEmpty {
            entries.append(
                .instructions(
                    Transcript.Instructions(
                        segments: instructions?.segments ?? [],
                        toolDefinitions: tools.filter(\.includesSchemaInInstructions).map {
                            Transcript.ToolDefinition(tool: $0)
                        })))
        }
        self.init(binding: binding, tools: tools, transcript: Transcript(entries: entries))
    }

    package init(binding: ModelBinding, tools: [any Tool], transcript: Transcript, profile: ProfileHolder? = nil) {
        self.binding = binding
        self.tools = tools
        self.profile = profile
        self.properties = SessionPropertyValues()
        self.state = Mutex(State(transcript: transcript))
        properties.attach(to: self)
    }

    // MARK: State

    /// Everything the session has done so far.
    ///
    /// Settable while the session is idle (27 SDK), to edit or trim the history the next request
    /// sees. A write while a request is running is not applied, and that request throws
    /// ``LanguageModelSession/Error/transcriptMutationWhileResponding`` when it ends (its
    /// response stays in the transcript). A Swift setter cannot throw, so the error reaches the
    /// code that made the request; Apple's documentation does not say which side sees it.
    public var transcript: Transcript {
        get {
            registrar.access(self, keyPath: \.transcript)
            return state.withLock { $0.transcript }
        }
        set {
            registrar.withMutation(of: self, keyPath: \.transcript) {
                state.withLock { state in
                    if state.isResponding {
                        state.writtenWhileResponding = true
                    } else {
                        state.transcript = newValue
                    }
                }
            }
        }
    }

    /// Whether the session is responding to a request now.
    public var isResponding: Bool {
        registrar.access(self, keyPath: \.isResponding)
        return state.withLock { $0.isResponding }
    }

    /// The tokens every request of this session has read and generated (as in the 27 SDK).
    public var usage: Usage {
        registrar.access(self, keyPath: \.usage)
        return state.withLock { $0.usage }
    }

    /// What a failed request leaves in the transcript; nil for the default,
    /// ``TranscriptErrorHandlingPolicy/revertTranscript`` (27 SDK).
    public var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy? {
        get { state.withLock { $0.errorPolicy } }
        set { state.withLock { $0.errorPolicy = newValue } }
    }

    /// Prepares the model for a request, so the first response starts sooner: the executor
    /// loads the model and may read the instructions (and `promptPrefix`) ahead.
    ///
    /// A hint that returns at once; the work happens in the background.
    public func prewarm(promptPrefix: Prompt? = nil) {
        var entries = transcript.entries
        if let promptPrefix { entries.append(.prompt(Transcript.Prompt(segments: promptPrefix.segments))) }
        let binding = self.binding
        let transcript = Transcript(entries: entries)
        // The executor's initializer is the model's code, and may be slow: not on this thread,
        // but on the executor the caller's task prefers.
        Task.detachedPreferringCurrentExecutor(priority: .utility) {
            guard let executor = try? binding.executor() else { return }
            executor.prewarm(transcript)
        }
    }

    package var toolDefinitions: [Transcript.ToolDefinition] { tools.map { Transcript.ToolDefinition(tool: $0) } }

    // MARK: State changes

    /// Marks the session as responding, and returns the transcript the request starts from.
    ///
    /// - Throws: ``GenerationError/concurrentRequests(_:)`` when a request is already running.
    package func claim() throws -> Transcript {
        let claimed: Transcript? = registrar.withMutation(of: self, keyPath: \.isResponding) {
            state.withLock { state in
                if state.isResponding { return nil }
                state.isResponding = true
                state.writtenWhileResponding = false
                return state.transcript
            }
        }
        guard let claimed else {
            throw GenerationError.concurrentRequests(
                .init(
                    debugDescription:
                        "The session is already responding to a request; wait for it to finish before making another."))
        }
        return claimed
    }

    /// Replaces the entries after the instructions, whether or not a request is running (a
    /// profile's hook compacting the history through ``SessionPropertyValues/history``).
    package func replaceHistory(with history: Transcript.HistoryView) {
        registrar.withMutation(of: self, keyPath: \.transcript) {
            state.withLock { $0.transcript.history = history }
        }
    }

    package func setTranscript(_ transcript: Transcript) {
        registrar.withMutation(of: self, keyPath: \.transcript) {
            state.withLock { $0.transcript = transcript }
        }
    }

    /// Ends the request: the session stops responding, and adds `usage` to its total.
    ///
    /// - Returns: whether the caller wrote ``transcript`` while the request ran.
    @discardableResult
    package func release(adding usage: Usage) -> Bool {
        registrar.withMutation(of: self, keyPath: \.usage) {
            state.withLock { $0.usage.add(usage) }
        }
        return registrar.withMutation(of: self, keyPath: \.isResponding) {
            state.withLock { state in
                state.isResponding = false
                return state.writtenWhileResponding
            }
        }
    }
}
