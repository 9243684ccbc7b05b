import FoundationModels

/// What the writing tools can do to a draft: the tools a phone offers on selected text.
public enum WritingTool: String, Sendable, Hashable, Codable, CaseIterable {
    case proofread, rewrite, friendly, professional, concise, summarize
    case keyPoints = "key_points"

    /// The name shown on the tool's button.
    public var title: String {
        switch self {
        case .proofread: "Proofread"
        case .rewrite: "Rewrite"
        case .friendly: "Make friendly"
        case .professional: "Make professional"
        case .concise: "Make concise"
        case .summarize: "Summarize"
        case .keyPoints: "Key points"
        }
    }

    /// What the model is asked to do.
    var task: String {
        switch self {
        case .proofread: "Proofread: fix spelling, grammar, capitals and punctuation. Change nothing else."
        case .rewrite: "Rewrite: say the same in other words, about as long."
        case .friendly: "Make friendly: rewrite it warm and friendly."
        case .professional: "Make professional: rewrite it polite and professional."
        case .concise: "Make concise: rewrite it shorter, keeping every name, number, amount, date and place."
        case .summarize: "Summarize: one or two sentences, shorter than the text, keeping the names and numbers."
        case .keyPoints: "Key points: list the key points, one short sentence each."
        }
    }
}

/// A rewritten text, as the model generates it: the text alone, so it cannot wander into
/// commentary ("Here is the friendlier version:").
@Generable(description: "The result of a writing tool")
public struct RewrittenText: Sendable, Equatable {
    @Guide(description: "The text after the task, and nothing else")
    public var text: String

    public init(text: String) {
        self.text = text
    }
}

/// The key points of a text.
@Generable(description: "The key points of a text")
public struct KeyPoints: Sendable, Equatable {
    @Guide(
        description: "One to five key points, each one short sentence", .count(1...5),
        .element(.pattern(/^[^\n\r•]{1,200}$/)))
    public var points: [String]

    public init(points: [String]) {
        self.points = points
    }

    /// The points as the text the composer gets: a "• " line each.
    public var text: String { Self.text(of: points) }

    static func text(of points: [String]) -> String {
        points.map { "• " + TextMatching.trimmed($0) }.joined(separator: "\n")
    }
}

/// Proofreads, rewrites, changes the tone of, shortens, summarizes or lists the key points of a
/// draft with the on-device model: Apple's Writing Tools, for Sotto's composers.
///
/// ```swift
/// let tools = WritingTools()
/// for try await text in tools.stream(.professional, on: "hey can u send the slides") {
///     preview.text = text  // the whole result so far
/// }
/// ```
///
/// Every request starts a fresh session from the same instructions and worked examples (one per
/// tool, on the same draft), so the engine's prefix cache serves that start to every tool.
public struct WritingTools: Sendable {
    /// The model the results come from.
    public let model: any LanguageModel

    /// The longest draft taken, in characters (a chat message's limit).
    public static let characterLimit = 4000

    /// Tools on `model`: the on-device model unless another is given, or any model of the seam (one
    /// behind an OpenAI-compatible endpoint, say).
    public init(model: some LanguageModel = SystemLanguageModel.default) {
        self.model = model
    }

    /// The result of `tool` on `text` as it is generated: each element is the whole result so
    /// far. `attempt` picks the sampling seed: the same attempt gives the same result, the next
    /// one ("Try again") another.
    public func stream(_ tool: WritingTool, on text: String, attempt: Int = 0) -> AsyncThrowingStream<
        String, any Error
    > {
        let session = LanguageModelSession(model: model, transcript: Self.transcript)
        let prompt = Self.prompt(tool, text: text)
        let options = StreamedResponse.options(
            attempt: attempt, temperature: tool == .proofread ? 0.2 : 0.6,
            maximumResponseTokens: StreamedResponse.budget(for: text))
        if tool == .keyPoints {
            return StreamedResponse.make(
                KeyPoints.self, in: session, prompt: prompt, options: options,
                partial: { $0.points.map(KeyPoints.text(of:)) }, final: \.text)
        }
        return StreamedResponse.make(
            RewrittenText.self, in: session, prompt: prompt, options: options, partial: \.text,
            final: { TextMatching.trimmed($0.text) })
    }

    /// The finished result of `tool` on `text`.
    public func apply(_ tool: WritingTool, to text: String, attempt: Int = 0) async throws -> String {
        try await StreamedResponse.last(of: stream(tool, on: text, attempt: attempt)) ?? ""
    }

    /// Loads the model and prefills the fixed start of every request in the background.
    public func prewarm() {
        guard model.isUsable else { return }
        LanguageModelSession(model: model, transcript: Self.transcript).prewarm()
    }

    package static let instructions = """
        You are the writing tools of a chat app. You get a task and a text the user wrote, and \
        you do the task on the text.

        Rules:
        - Keep every fact: names, numbers, amounts, dates, times and places stay as written.
        - Write in the language of the text.
        - Answer with the result only: no explanation, no quotes around it.
        """

    /// The prompt for `tool` on `text`.
    package static func prompt(_ tool: WritingTool, text: String) -> String {
        "Task: \(tool.task)\n\nText:\n\(String(text.prefix(characterLimit)))"
    }

    /// One draft with each tool's answer.
    package static let exampleDraft =
        "hey team, quick update: the client moved the launch to march 3 so we have two extra weeks. priya will redo "
        + "the slides and i'll send the new budget (about $4,000 less) by thursday. lets meet monday at 10 to go over it"

    package static let exampleAnswers: [WritingTool: String] = [
        .proofread:
            "Hey team, quick update: the client moved the launch to March 3, so we have two extra weeks. Priya will "
            + "redo the slides, and I'll send the new budget (about $4,000 less) by Thursday. Let's meet Monday at 10 "
            + "to go over it.",
        .rewrite:
            "Hi team, a quick update: the client pushed the launch to March 3, which gives us two more weeks. Priya is "
            + "redoing the slides, and I'll share the new budget (about $4,000 lower) by Thursday. Let's get together "
            + "Monday at 10 to review it.",
        .friendly:
            "Hi team! Good news: the client moved the launch to March 3, so we've got two extra weeks. Priya will redo "
            + "the slides and I'll send the new budget (about $4,000 less) by Thursday. Let's meet Monday at 10 and go "
            + "over it together!",
        .professional:
            "Hello team, a brief update: the client has moved the launch to March 3, giving us two additional weeks. "
            + "Priya will revise the slides, and I will send the updated budget (about $4,000 lower) by Thursday. "
            + "Let us meet on Monday at 10 to review it.",
        .concise:
            "Launch moved to March 3 (two extra weeks). Priya redoes the slides; I'll send the new budget (about "
            + "$4,000 less) by Thursday. Meeting Monday at 10.",
        .summarize:
            "The launch moved to March 3; Priya is redoing the slides, the new budget (about $4,000 less) comes by "
            + "Thursday, and the team meets Monday at 10.",
    ]

    package static let exampleKeyPoints = [
        "The launch moved to March 3, two weeks later.", "Priya will redo the slides.",
        "The new budget, about $4,000 less, comes by Thursday.", "The team meets Monday at 10.",
    ]

    /// The instructions, then every tool once on ``exampleDraft``.
    package static let transcript: Transcript = {
        var entries = Array(
            StreamedResponse.transcript(
                instructions: instructions,
                examples: WritingTool.allCases.compactMap { tool in
                    exampleAnswers[tool].map { (prompt(tool, text: exampleDraft), RewrittenText(text: $0)) }
                }))
        let keyPoints = StreamedResponse.transcript(
            instructions: instructions,
            examples: [(prompt(.keyPoints, text: exampleDraft), KeyPoints(points: exampleKeyPoints))])
        entries.append(contentsOf: keyPoints.dropFirst())
        return Transcript(entries: entries)
    }()
}
