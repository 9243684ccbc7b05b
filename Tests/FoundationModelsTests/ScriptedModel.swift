import Foundation
import FoundationModels
import Synchronization

/// A language model defined outside FoundationModels with only its public API (as an app or
/// another package would write one): its executor plays back scripted turns instead of running
/// a model, and records what it was asked. Tokens are whitespace-separated words.
struct ScriptedModel: LanguageModel {
    typealias Executor = ScriptedExecutor

    enum Turn: Sendable {
        /// Response text, streamed in `pieces` (which must add up to it) or in one piece.
        case text(String, pieces: [String]? = nil)
        case toolCalls([Transcript.ToolCall])
        case failure(any Error)
        /// A word every `interval` until the request is cancelled, checking for the cancellation
        /// before each word (as the engine checks before each token).
        case endless(interval: Duration)
    }

    let script: Script
    let capabilities: LanguageModelCapabilities

    init(
        contextSize: Int = 4096, turns: [Turn], gate: Gate? = nil,
        capabilities: [LanguageModelCapabilities.Capability] = [.guidedGeneration, .toolCalling, .vision]
    ) {
        script = Script(contextSize: contextSize, turns: turns, gate: gate)
        self.capabilities = LanguageModelCapabilities(capabilities: capabilities)
    }

    var executorConfiguration: ScriptedExecutor.Configuration { ScriptedExecutor.Configuration(script: script) }

    /// The requests the executor was called with, in order.
    var requests: [LanguageModelExecutorGenerationRequest] { script.requests }
    /// The transcripts the executor was asked to prewarm.
    var prewarmed: [Transcript] { script.prewarmed }
    /// How many executors were created for this model's configuration.
    var executorsCreated: Int { script.executorsCreated }
}

/// The shared state of a scripted model.
final class Script: Sendable, Hashable {
    private struct State {
        var turns: [ScriptedModel.Turn]
        var requests: [LanguageModelExecutorGenerationRequest] = []
        var prewarmed: [Transcript] = []
        var executorsCreated = 0
        var wordsSent = 0
    }

    let contextSize: Int
    let gate: Gate?
    private let state: Mutex<State>

    init(contextSize: Int, turns: [ScriptedModel.Turn], gate: Gate?) {
        self.contextSize = contextSize
        self.gate = gate
        state = Mutex(State(turns: turns))
    }

    var requests: [LanguageModelExecutorGenerationRequest] { state.withLock { $0.requests } }
    var prewarmed: [Transcript] { state.withLock { $0.prewarmed } }
    var executorsCreated: Int { state.withLock { $0.executorsCreated } }
    /// Words endless turns have sent so far.
    var wordsSent: Int { state.withLock { $0.wordsSent } }
    func sentWord() { state.withLock { $0.wordsSent += 1 } }

    func created() { state.withLock { $0.executorsCreated += 1 } }

    func take(_ request: LanguageModelExecutorGenerationRequest) -> ScriptedModel.Turn? {
        state.withLock { state in
            state.requests.append(request)
            return state.turns.isEmpty ? nil : state.turns.removeFirst()
        }
    }

    func recordPrewarm(_ transcript: Transcript) { state.withLock { $0.prewarmed.append(transcript) } }

    static func == (lhs: Script, rhs: Script) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

struct ScriptedExecutor: LanguageModelExecutor {
    struct Configuration: Hashable, Sendable {
        let script: Script
    }

    private let script: Script

    init(configuration: Configuration) {
        script = configuration.script
        script.created()
    }

    func prewarm(model: ScriptedModel, transcript: Transcript) {
        script.recordPrewarm(transcript)
        Task { await script.gate?.pass() }
    }

    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: ScriptedModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        let turn = script.take(request)
        await script.gate?.pass()
        let prompt = request.transcript.reduce(0) { $0 + Self.words($1.description) - 1 }
        guard prompt <= script.contextSize else {
            throw LanguageModelSession.GenerationError.exceededContextWindowSize(
                .init(
                    debugDescription:
                        "Content contains \(prompt) tokens, which exceeds the maximum allowed context size of \(script.contextSize)"
                ))
        }
        switch turn {
        case .text(let text, let pieces)?:
            for piece in pieces ?? [text] {
                await channel.send(.response(action: .appendText(piece, tokenCount: Self.words(piece))))
            }
            await channel.send(
                .response(
                    action: .updateUsage(
                        input: .init(totalTokenCount: prompt, cachedTokenCount: prompt / 2),
                        output: .init(totalTokenCount: Self.words(text), reasoningTokenCount: 0))))
        case .toolCalls(let calls)?:
            for call in calls {
                await channel.send(
                    .toolCalls(
                        action: .toolCall(
                            id: call.id, name: call.toolName,
                            action: .appendArguments(call.arguments.jsonString, tokenCount: 5))))
            }
        case .failure(let error)?:
            throw error
        case .endless(let interval)?:
            var sent = 0
            while true {
                if Task.isCancelled {
                    // What was generated is reported, then the cancellation.
                    await channel.send(
                        .response(
                            action: .updateUsage(
                                input: .init(totalTokenCount: prompt, cachedTokenCount: 0),
                                output: .init(totalTokenCount: sent, reasoningTokenCount: 0))))
                    throw CancellationError()
                }
                await channel.send(.response(action: .appendText("word ", tokenCount: 1)))
                sent += 1
                script.sentWord()
                try? await Task.sleep(for: interval)
            }
        case nil:
            throw ScriptError.outOfTurns
        }
    }

    enum ScriptError: Error {
        case outOfTurns
    }

    static func words(_ text: String) -> Int {
        text.split(whereSeparator: { $0.isWhitespace }).count
    }
}

/// Holds callers until opened, and reports each caller's arrival.
final class Gate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    private let arrivalStream: AsyncStream<Void>
    private let arrivalContinuation: AsyncStream<Void>.Continuation

    init(open: Bool = false) {
        (arrivalStream, arrivalContinuation) = AsyncStream.makeStream(of: Void.self)
        if open { self.open() }
    }

    func pass() async {
        arrivalContinuation.yield()
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    /// Waits until a caller has arrived at the gate.
    func waitForArrival() async {
        var iterator = arrivalStream.makeAsyncIterator()
        _ = await iterator.next()
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}

/// A tool as Apple's documentation writes one.
struct WeatherTool: Tool {
    let name = "getWeather"
    let description = "Gets the current temperature in a city."

    @Generable
    struct Arguments {
        @Guide(description: "The city to get the weather for")
        var city: String
    }

    func call(arguments: Arguments) async throws -> String {
        guard arguments.city != "Atlantis" else { throw WeatherError.unknownCity(arguments.city) }
        return "21 °C in \(arguments.city)"
    }

    enum WeatherError: Error {
        case unknownCity(String)
    }
}

extension Transcript {
    /// The text of each entry, in order (instructions, prompts, outputs, responses).
    var texts: [String] {
        map { entry in
            switch entry {
            case .instructions(let instructions): instructions.description
            case .prompt(let prompt): prompt.description
            case .toolCalls(let calls): calls.description
            case .toolOutput(let output): output.description
            case .response(let response): response.description
            case .reasoning(let reasoning): reasoning.description
            }
        }
    }
}
