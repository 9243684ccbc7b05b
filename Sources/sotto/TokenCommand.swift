import ChatStore
import Foundation
import ModelStore
import Server
import ServerKit

/// `sotto token <user-id> [--expires-in DURATION] [--admin]`: mints a sign-in token with the app
/// secret; `sotto token revoke <user-id>`: revokes every token the user holds.
struct TokenCommand: Command {
    static let name = "token"
    static let summary = "Print a sign-in token for a chat user, or revoke a user's tokens."
    static let usage = """
        usage: sotto token <user-id> [--expires-in DURATION] [--admin]
               sotto token revoke <user-id>

        Prints an HS256 JWT for the user, signed with the app secret ($SOTTO_SECRET, or
        $SOTTO_HOME/secret, created on first use). Paste it into the web app's Token field, or
        give it to an API client as its key.

          --expires-in DURATION   e.g. 30m, 12h, 7d, 4w (s, m, h, d, w), or never;
                                  default: \(defaultLifetimeText)
          --admin                 the token may also create and rename other users (POST /api/users)
                                  and read /api/metrics

        'sotto token revoke <user-id>' revokes every token minted for the user so far (a running
        server refuses them within a second and closes their sockets); tokens minted after it
        work. 'sotto user disable <user-id>' refuses the user altogether.
        """
    static let valueOptions: Set<String> = ["expires-in"]
    static let switchOptions: Set<String> = ["admin"]

    /// How long a token lives unless `--expires-in` says otherwise.
    static let defaultLifetime: Int64 = 30 * 86_400
    static let defaultLifetimeText = "30 days"

    static func run(_ arguments: Arguments) async throws -> Int32 {
        if arguments.positionals.first == "revoke", arguments.positionals.count == 2 {
            guard arguments.string("expires-in") == nil, !arguments.has("admin") else {
                throw UsageError(description: "'sotto token revoke' takes only a user id")
            }
            let user = try UserID.commandLine(arguments.positionals[1])
            let generation = try await ModelStore().openChatStore().revokeTokens(of: user)
            print("Revoked every token of \(user) minted so far (token generation now \(generation)).")
            return 0
        }
        guard arguments.positionals.count == 1 else { throw UsageError(description: "expected exactly one user id") }
        let user = try UserID.commandLine(arguments.positionals[0])
        let lifetime: Int64? =
            switch arguments.string("expires-in") {
            case nil: defaultLifetime
            case "never"?: nil
            case let text?: try parseDuration(text)
            }
        let store = try await ModelStore().openChatStore()
        let access = try await store.access(of: user)
        if access.isDisabled {
            throw CommandFailure(description: "user '\(user)' is disabled; 'sotto user enable \(user)' first")
        }
        let authority = TokenAuthority(secret: try ModelStore().loadSecret())
        print(
            authority.token(
                for: user, lifetime: lifetime, admin: arguments.has("admin"), generation: access.tokenGeneration))
        return 0
    }

    /// Seconds in `30s`, `30m`, `12h`, `7d` or `2w`.
    static func parseDuration(_ text: String) throws -> Int64 {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        guard let unit = text.last, let multiplier = units[unit], let count = Int64(text.dropLast()), count > 0,
            count <= 100 * 365 * 86_400 / multiplier
        else {
            throw UsageError(
                description:
                    "--expires-in expects a positive number with s, m, h, d or w (e.g. 12h), or never; got '\(text)'")
        }
        return count * multiplier
    }
}
