import ChatStore
import Foundation
import ModelStore
import Server

/// `sotto token <user-id> [--expires-in DURATION]`: mints a sign-in token with the app secret.
struct TokenCommand: Command {
    static let name = "token"
    static let summary = "Print a sign-in token for a chat user."
    static let usage = """
        usage: sotto token <user-id> [--expires-in DURATION] [--admin]

        Prints an HS256 JWT for the user, signed with the app secret ($SOTTO_SECRET, or
        $SOTTO_HOME/secret, created on first use). Paste it into the web app's Token field.

          --expires-in DURATION   e.g. 30m, 12h, 7d (s, m, h, d, w); default: never expires
          --admin                 the token may also create and rename other users (POST /api/users)
        """
    static let valueOptions: Set<String> = ["expires-in"]
    static let switchOptions: Set<String> = ["admin"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 1 else { throw UsageError(description: "expected exactly one user id") }
        let user: UserID
        do {
            user = try UserID.validated(arguments.positionals[0])
        } catch {
            throw UsageError(description: "\(error)")
        }
        let lifetime = try arguments.string("expires-in").map(parseDuration)
        let authority = TokenAuthority(secret: try ModelStore().loadSecret())
        print(authority.token(for: user, lifetime: lifetime, admin: arguments.has("admin")))
        return 0
    }

    /// Seconds in `30s`, `30m`, `12h`, `7d` or `2w`.
    static func parseDuration(_ text: String) throws -> Int64 {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        guard let unit = text.last, let multiplier = units[unit], let count = Int64(text.dropLast()), count > 0,
            count <= 100 * 365 * 86_400 / multiplier
        else {
            throw UsageError(
                description: "--expires-in expects a positive number with s, m, h, d or w (e.g. 12h), got '\(text)'")
        }
        return count * multiplier
    }
}
