import Tokenizers

/// Steers generation token by token, e.g. a grammar or JSON-schema matcher.
///
/// Before each step the loop asks for forced tokens (appended without sampling, as when only one
/// continuation is legal). Otherwise it samples; a constraint that can judge a single token
/// cheaply (`canAccept`) is asked about the sampled token first, and only when it refuses is the
/// full mask built (`restrict`) and the token sampled again among the allowed ones — llama.cpp's
/// fast path. For greedy decoding this is exact; with temperature it equals masking first, and with
/// top-k/top-p it differs only in that truncation sees the unmasked distribution first. Every
/// token that becomes part of the output — sampled or forced — is passed to `accept`.
public protocol TokenConstraint: Sendable {
    /// Tokens that must come next, or an empty array to sample.
    mutating func forcedTokens() -> [Int]
    /// Whether `canAccept` answers; `false` (the default) builds the mask before every sample.
    var checksSingleTokens: Bool { get }
    /// Whether `token` may come next (asked only when `checksSingleTokens`).
    mutating func canAccept(_ token: Int) -> Bool
    /// Clears disallowed tokens from `mask` (which starts allowing every token). Return `false`
    /// to skip masking for this step (every token allowed).
    mutating func restrict(_ mask: inout TokenMask) -> Bool
    /// Whether `refine(_:refusing:)` is called when the model's most likely token is not in the
    /// mask `restrict` built; `false` by default.
    var refinesRefusals: Bool { get }
    /// Narrows `mask` (already restricted) knowing that `preferred`, the model's most likely next
    /// token, is not allowed — e.g. to keep a word the model meant to end from running on.
    mutating func refine(_ mask: inout TokenMask, refusing preferred: Int)
    /// Advances past `token`.
    mutating func accept(_ token: Int) throws
    /// Whether the output is complete and generation should stop.
    var isComplete: Bool { get }
}

extension TokenConstraint {
    public var checksSingleTokens: Bool { false }
    public mutating func canAccept(_ token: Int) -> Bool { true }
    public var refinesRefusals: Bool { false }
    public mutating func refine(_ mask: inout TokenMask, refusing preferred: Int) {}
}
