/// Steers generation token by token, e.g. a grammar or JSON-schema matcher.
///
/// Before each step the loop asks for forced tokens (appended without sampling, as when only one
/// continuation is legal), otherwise for a mask of allowed tokens; every token that becomes part
/// of the output — sampled or forced — is passed to `accept`.
public protocol TokenConstraint: Sendable {
    /// Tokens that must come next, or an empty array to sample.
    mutating func forcedTokens() -> [Int]
    /// Clears disallowed tokens from `mask` (which starts allowing every token). Return `false`
    /// to skip masking for this step (every token allowed).
    mutating func restrict(_ mask: inout TokenMask) -> Bool
    /// Advances past `token`.
    mutating func accept(_ token: Int) throws
    /// Whether the output is complete and generation should stop.
    var isComplete: Bool { get }
}
