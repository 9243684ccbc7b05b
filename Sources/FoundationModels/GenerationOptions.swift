/// How a response is sampled: the sampling mode, the temperature, a limit on its length, and
/// (27 SDK) whether the model may call tools.
///
/// ```swift
/// let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 200)
/// ```
public struct GenerationOptions: Sendable, Equatable {
    /// How the next token is chosen from the model's distribution.
    public struct SamplingMode: Sendable, Equatable {
        /// The mode's parameters (public in the 27 SDK, with the names of its beta 3: beta 2
        /// called the last two `top(k:seed:)` and `nucleus(threshold:seed:)`).
        public enum Kind: Sendable, Equatable, Hashable {
            case greedy
            case randomTopK(_ k: Int, seed: UInt64?)
            case randomProbabilityThreshold(_ threshold: Double, seed: UInt64?)
        }

        public let kind: Kind

        package init(_ kind: Kind) {
            self.kind = kind
        }

        /// Always the most likely token: the same prompt gives the same response.
        public static var greedy: SamplingMode { SamplingMode(.greedy) }

        /// A random choice among the `k` most likely tokens.
        public static func random(top k: Int, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(.randomTopK(k, seed: seed))
        }

        /// A random choice among the most likely tokens whose probabilities add up to
        /// `probabilityThreshold` (nucleus sampling).
        public static func random(probabilityThreshold: Double, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(.randomProbabilityThreshold(probabilityThreshold, seed: seed))
        }
    }

    /// Whether the model may call the session's tools (27 SDK).
    ///
    /// Sotto departs from Apple's (loosely documented) `.required`: the model must call a tool
    /// in the first round of the response, and may answer after the tools' output.
    public struct ToolCallingMode: Sendable, Equatable {
        public enum Kind: Sendable, Equatable, Hashable {
            case allowed, required, disallowed
        }

        public var kind: Kind

        /// The model decides (the default).
        public static let allowed = ToolCallingMode(kind: .allowed)
        /// The model must call a tool before it answers.
        public static let required = ToolCallingMode(kind: .required)
        /// The model may not call tools.
        public static let disallowed = ToolCallingMode(kind: .disallowed)
    }

    /// The sampling mode; nil uses the default (random sampling). The 27 SDK renames it
    /// ``samplingMode`` (Sotto keeps both without a deprecation warning).
    public var sampling: SamplingMode?

    /// The temperature, from 0 (most predictable) to 1 and above (more varied); nil uses the default.
    public var temperature: Double?

    /// The most tokens the response may have; generation stops there. nil means no limit
    /// other than the context.
    public var maximumResponseTokens: Int?

    /// Whether the model may call tools; nil for ``ToolCallingMode/allowed`` (27 SDK).
    public var toolCallingMode: ToolCallingMode?

    /// The sampling mode (the 27 SDK name of ``sampling``).
    public var samplingMode: SamplingMode? {
        get { sampling }
        set { sampling = newValue }
    }

    /// Creates options (the 26 SDK's initializer; the 27 SDK removes the default of `sampling`
    /// so that `GenerationOptions()` means the initializer below).
    public init(sampling: SamplingMode?, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.sampling = sampling
        self.temperature = temperature
        self.maximumResponseTokens = maximumResponseTokens
    }

    /// Creates options; nil for any of them uses the default.
    public init(samplingMode: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.init(sampling: samplingMode, temperature: temperature, maximumResponseTokens: maximumResponseTokens)
    }

    /// Creates options with a tool-calling mode (27 SDK).
    public init(
        samplingMode: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil,
        toolCallingMode: ToolCallingMode?
    ) {
        self.init(sampling: samplingMode, temperature: temperature, maximumResponseTokens: maximumResponseTokens)
        self.toolCallingMode = toolCallingMode
    }
}
