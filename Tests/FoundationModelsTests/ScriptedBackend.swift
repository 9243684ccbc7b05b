import FoundationModels
import Synchronization

/// A backend that plays back scripted turns instead of running a model, and records what it was
/// asked. Tokens are whitespace-separated words.
final class ScriptedBackend: LanguageModelBackend {
    enum Turn: Sendable {
        /// Response text, streamed in `pieces` (which must add up to it) or in one piece.
        case text(String, pieces: [String]? = nil)
        case toolCalls([Transcript.ToolCall])
        case failure(any Error)
    }

    private struct State {
        var turns: [Turn]
        var requests: [GenerationRequest] = []
        var prewarmed: [GenerationRequest] = []
    }

    let contextSize: Int
    private let state: Mutex<State>
    /// When set, every generation passes through it (and waits while it is closed).
    private let gate: Gate?

    init(contextSize: Int = 4096, turns: [Turn], gate: Gate? = nil) {
        self.contextSize = contextSize
        self.state = Mutex(State(turns: turns))
        self.gate = gate
    }

    /// The requests `generate` was called with, in order.
    var requests: [GenerationRequest] { state.withLock { $0.requests } }
    var prewarmed: [GenerationRequest] { state.withLock { $0.prewarmed } }

    func tokenCount(for text: String) async throws -> Int {
        Self.words(text)
    }

    func promptTokenCount(for request: GenerationRequest) async throws -> Int {
        request.messages.reduce(0) { $0 + Self.words($1.content) }
    }

    func generate(_ request: GenerationRequest, onText: @escaping @Sendable (String) -> Void) async throws
        -> GenerationOutput
    {
        let turn = state.withLock { state -> Turn? in
            state.requests.append(request)
            return state.turns.isEmpty ? nil : state.turns.removeFirst()
        }
        await gate?.pass()
        let prompt = try await promptTokenCount(for: request)
        switch turn {
        case .text(let text, let pieces)?:
            for piece in pieces ?? [text] { onText(piece) }
            return GenerationOutput(
                content: .text(text), promptTokenCount: prompt, cachedTokenCount: prompt / 2,
                outputTokenCount: Self.words(text))
        case .toolCalls(let calls)?:
            return GenerationOutput(content: .toolCalls(calls), promptTokenCount: prompt, outputTokenCount: 5)
        case .failure(let error)?:
            throw error
        case nil:
            throw ScriptError.outOfTurns
        }
    }

    func prewarm(_ request: GenerationRequest) async {
        state.withLock { $0.prewarmed.append(request) }
        await gate?.pass()
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
