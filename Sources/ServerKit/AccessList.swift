import ChatStore
import Synchronization

/// The users whose tokens were revoked or who are disabled, as the store last said: what every
/// token check asks after the signature (``TokenAuthority/verify(_:now:)``).
///
/// The server refreshes it from the store (``UserAccessMonitor``); until then, and for users it
/// does not list, nothing is restricted.
public final class AccessList: Sendable {
    private let entries = Mutex<[UserID: UserAccess]>([:])

    public init() {}

    /// Why `claims` are refused now, or nil when they are not.
    public func refusal(for claims: TokenClaims) -> AuthError? {
        guard let access = entries.withLock({ $0[claims.user] }) else { return nil }
        if access.isDisabled { return .userDisabled }
        if claims.generation < access.tokenGeneration { return .revoked }
        return nil
    }

    /// Replaces the list with the store's.
    public func replace(with restricted: [UserID: UserAccess]) {
        entries.withLock { $0 = restricted }
    }
}
