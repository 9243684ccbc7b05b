/// How a response is sampled: the sampling mode, the temperature, and a limit on its length.
///
/// ```swift
/// let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 200)
/// ```
public struct GenerationOptions: Sendable, Equatable {
    /// How the next token is chosen from the model's distribution.
    public struct SamplingMode: Sendable, Equatable {
        package enum Kind: Sendable, Equatable, Hashable {
            case greedy
            case top(k: Int, seed: UInt64?)
            case nucleus(threshold: Double, seed: UInt64?)
        }

        package let kind: Kind

        package init(_ kind: Kind) {
            self.kind = kind
        }

        /// Always the most likely token: the same prompt gives the same response.
        public static var greedy: SamplingMode { SamplingMode(.greedy) }

        /// A random choice among the `k` most likely tokens.
        public static func random(top k: Int, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(.top(k: k, seed: seed))
        }

        /// A random choice among the most likely tokens whose probabilities add up to
        /// `probabilityThreshold` (nucleus sampling).
        public static func random(probabilityThreshold: Double, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(.nucleus(threshold: probabilityThreshold, seed: seed))
        }
    }

    /// The sampling mode; nil uses the default (random sampling).
    public var sampling: SamplingMode?

    /// The temperature, from 0 (most predictable) to 1 and above (more varied); nil uses the default.
    public var temperature: Double?

    /// The most tokens the response may have; generation stops there. nil means no limit
    /// other than the context.
    public var maximumResponseTokens: Int?

    /// The sampling mode (the SDK 27 name of ``sampling``).
    public var samplingMode: SamplingMode? {
        get { sampling }
        set { sampling = newValue }
    }

    /// Creates options; nil for any of them uses the default.
    public init(sampling: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.sampling = sampling
        self.temperature = temperature
        self.maximumResponseTokens = maximumResponseTokens
    }
}
