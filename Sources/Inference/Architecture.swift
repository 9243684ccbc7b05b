/// What distinguishes one decoder-only transformer architecture from another, as far as the
/// shared forward pass is concerned.
struct Architecture: Sendable {
    /// The `general.architecture` value, also the prefix of its metadata keys.
    let name: String
    /// Which RoPE pairing the architecture uses.
    let ropeStyle: RopeStyle
    /// Whether Q, K and V projections carry bias vectors (`blk.N.attn_q.bias`, …).
    let attentionBias: TensorPresence
    /// Default RoPE base when `{arch}.rope.freq_base` is absent.
    let defaultRopeBase: Double
    /// Default RMSNorm ε when `{arch}.attention.layer_norm_rms_epsilon` is absent.
    let defaultNormEpsilon: Double
}

/// Whether a family of tensors must, may or must not be present.
enum TensorPresence: Sendable {
    case required, optional, absent
}

/// The architectures Sotto runs, keyed by `general.architecture`.
enum ArchitectureRegistry {
    static let all: [Architecture] = [Llama.architecture, Qwen2.architecture]

    /// Names of the supported architectures, for messages.
    static var supportedNames: [String] { all.map(\.name) }

    /// The architecture called `name`, or an error naming the supported ones.
    static func architecture(named name: String) throws(InferenceError) -> Architecture {
        guard let found = all.first(where: { $0.name == name }) else {
            throw .unsupportedArchitecture(name, supported: supportedNames)
        }
        return found
    }
}
