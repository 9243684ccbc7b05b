/// How a request uses the model's context: whether the schema is also written into the prompt,
/// and how much the model reasons (as in the iOS 27 SDK).
public struct ContextOptions: Sendable, Equatable {
    /// How much a reasoning model thinks before it answers.
    public enum ReasoningLevel: Sendable, Equatable {
        case light
        case moderate
        case deep
        /// A level a model provider names itself.
        case custom(String)
    }

    /// Whether the response's schema goes into the prompt; nil leaves it to the model (Sotto's
    /// local engine then includes it).
    public var includeSchemaInPrompt: Bool?
    /// How much to reason; nil for the model's default. A model without the `reasoning`
    /// capability rejects a request that sets it.
    public var reasoningLevel: ReasoningLevel?

    public init(includeSchemaInPrompt: Bool? = nil, reasoningLevel: ReasoningLevel? = nil) {
        self.includeSchemaInPrompt = includeSchemaInPrompt
        self.reasoningLevel = reasoningLevel
    }
}
