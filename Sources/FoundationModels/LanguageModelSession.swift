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
/// A session answers one request at a time: a request made while another is running throws
/// ``GenerationError/concurrentRequests(_:)``. If a request fails, the transcript is left as it
/// was before it.
public final class LanguageModelSession: Sendable, Observable {
    /// The model the session uses.
    package let model: SystemLanguageModel
    /// The tools the model may call.
    package let tools: [any Tool]

    private let state: Mutex<State>
    private let registrar = ObservationRegistrar()

    private struct State {
        var transcript: Transcript
        var isResponding = false
        var usage = Usage.zero
    }

    /// The most tool-calling rounds in one request; after that the model must respond.
    package static let maximumToolRounds = 8

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
        self.init(model: model, tools: tools, instructions: try instructions())
    }

    /// A session with instructions.
    public convenience init(
        model: SystemLanguageModel = .default, tools: [any Tool] = [], instructions: Instructions? = nil
    ) {
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
        self.init(model: model, tools: tools, transcript: Transcript(entries: entries))
    }

    /// A session that continues from a transcript (whose first entry, if it is instructions,
    /// gives the session's instructions).
    public init(model: SystemLanguageModel = .default, tools: [any Tool] = [], transcript: Transcript) {
        self.model = model
        self.tools = tools
        self.state = Mutex(State(transcript: transcript))
    }

    /// Everything the session has done so far.
    public var transcript: Transcript {
        registrar.access(self, keyPath: \.transcript)
        return state.withLock { $0.transcript }
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

    /// Loads the model and prepares it for a request, so the first response starts sooner.
    ///
    /// A hint: call it a moment before the user is likely to make a request.
    public func prewarm(promptPrefix: Prompt? = nil) {
        guard let backend = try? model.backend() else { return }
        var entries = transcript.entries
        if let promptPrefix { entries.append(.prompt(Transcript.Prompt(segments: promptPrefix.segments))) }
        let request = GenerationRequest(transcript: Transcript(entries: entries), tools: toolDefinitions)
        Task { await backend.prewarm(request) }
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

    package func setTranscript(_ transcript: Transcript) {
        registrar.withMutation(of: self, keyPath: \.transcript) {
            state.withLock { $0.transcript = transcript }
        }
    }

    /// Ends the request: the session stops responding, and adds `usage` to its total.
    package func release(adding usage: Usage) {
        registrar.withMutation(of: self, keyPath: \.usage) {
            state.withLock { $0.usage.add(usage) }
        }
        registrar.withMutation(of: self, keyPath: \.isResponding) {
            state.withLock { $0.isResponding = false }
        }
    }
}
