/// What a language model can do beyond plain text.
///
/// ```swift
/// let capabilities = LanguageModelCapabilities(capabilities: [.guidedGeneration, .toolCalling])
/// capabilities.contains(.vision)  // false
/// ```
public struct LanguageModelCapabilities: Sendable {
    private let set: Set<Capability>

    /// A model with these capabilities.
    public init(capabilities: [Capability]) {
        set = Set(capabilities)
    }

    /// A model with these capabilities.
    ///
    /// The 27 SDK's beta 2 spelled the initializer without a label; later betas label it
    /// `capabilities:`. Sotto accepts both.
    public init(_ capabilities: [Capability]) {
        self.init(capabilities: capabilities)
    }

    /// Whether the model has `capability`.
    public func contains(_ capability: Capability) -> Bool {
        set.contains(capability)
    }

    /// One capability.
    public struct Capability: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// Reads images attached to prompts. (Sotto's local engine reads the text in them, and a
        /// few measured properties; see `docs/Porting.md`.)
        public static var vision: Capability { Capability("vision") }
        /// Follows a schema (`respond(generating:)`, `respond(schema:)`).
        public static var guidedGeneration: Capability { Capability("guidedGeneration") }
        /// Reasons before it answers (`ContextOptions.reasoningLevel`).
        public static var reasoning: Capability { Capability("reasoning") }
        /// Calls tools.
        public static var toolCalling: Capability { Capability("toolCalling") }

        public var description: String { name }
    }
}

extension LanguageModelCapabilities: CustomStringConvertible {
    public var description: String {
        "LanguageModelCapabilities(" + set.map(\.description).sorted().joined(separator: ", ") + ")"
    }
}
