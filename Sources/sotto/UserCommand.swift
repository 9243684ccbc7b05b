import ChatStore
import Foundation
import ModelStore
import Server

/// `sotto user add|rename|list|disable|enable|invite|admin`: the administrator's way to manage
/// chat users.
struct UserCommand: Command {
    static let name = "user"
    static let summary =
        "Create, rename, list, disable, enable and invite chat users, and make administrators (an administrator's act)."
    static let usage = """
        usage: sotto user add <user-id> <display name>
               sotto user rename <user-id> <display name>
               sotto user disable <user-id>
               sotto user enable <user-id>
               sotto user list
               sotto user invite <user-id> [--name NAME] [--reset] [--expires-in 72h] [--url URL]
               sotto user admin <user-id> [--revoke]

        Works on $SOTTO_HOME/chat.sqlite directly. Display names are unique (case-insensitive)
        and may not hold control, invisible or bidirectional characters, nor mix scripts within
        a word (Latin with Cyrillic or Greek letters: a lookalike of another name). Sign a user
        in with 'sotto token <user-id>'; 'sotto token <user-id> --admin' mints a token that may
        create users through POST /api/users.

        A disabled user's every request is refused (401 user_disabled) and a running server
        closes their sockets within a second; 'enable' lets their tokens work again (those not
        revoked with 'sotto token revoke').

        'invite' prints a one-time link that lets the person set their password (and display
        name) and signs them in; the user is created if needed (--name sets the display name).
        With --reset it resets an existing user's password instead: their sessions end when the
        link is used. A link works once, until it expires (--expires-in, default 72h); a new
        one replaces the last unused one. --url is the address people open the chat at (default
        http://127.0.0.1:8080). 'admin' makes a user an administrator, who may invite people
        and reset passwords in the web app; --revoke takes that away and ends their sessions
        and tokens (they sign in again as a member).
        """
    static let valueOptions: Set<String> = ["name", "expires-in", "url"]
    static let switchOptions: Set<String> = ["reset", "revoke"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard let action = arguments.positionals.first else {
            throw UsageError(description: "expected add, rename, disable, enable, list, invite or admin")
        }
        let rest = Array(arguments.positionals.dropFirst())
        switch action {
        case "add", "rename":
            guard rest.count == 2 else { throw UsageError(description: "expected a user id and a display name") }
            let id = try UserID.commandLine(rest[0])
            let store = try await ModelStore().openChatStore()
            let exists = try await store.user(id) != nil
            if action == "add" && exists {
                throw UsageError(description: "user '\(id)' exists; use 'sotto user rename'")
            }
            if action == "rename" && !exists { throw UsageError(description: "no user '\(id)'; use 'sotto user add'") }
            let user = try await store.upsertUsers([UserUpdate(id: id, name: rest[1])], by: nil)[0]
            print("\(action == "add" ? "Added" : "Renamed") \(user.id) (\"\(user.name)\").")
            return 0
        case "disable", "enable":
            guard rest.count == 1 else { throw UsageError(description: "expected a user id") }
            let id = try UserID.commandLine(rest[0])
            let store = try await ModelStore().openChatStore()
            guard try await store.user(id) != nil else { throw UsageError(description: "no user '\(id)'") }
            try await store.setDisabled(action == "disable", for: id)
            print("\(action == "disable" ? "Disabled" : "Enabled") \(id).")
            return 0
        case "list":
            guard rest.isEmpty else { throw UsageError(description: "list takes no arguments") }
            let store = try await ModelStore().openChatStore()
            let restricted = try await store.restrictedAccess()
            for user in try await store.allUsers() {
                print("\(user.id)\t\(user.name)" + (restricted[user.id]?.isDisabled == true ? "\tdisabled" : ""))
            }
            return 0
        case "invite":
            guard rest.count == 1 else { throw UsageError(description: "expected a user id") }
            let id = try UserID.commandLine(rest[0])
            let store = try await ModelStore().openChatStore()
            let exists = try await store.user(id) != nil
            if arguments.has("reset") {
                guard exists else { throw UsageError(description: "no user '\(id)' to reset") }
            } else if !exists || arguments.string("name") != nil {
                _ = try await store.upsertUsers(
                    [UserUpdate(id: id, name: arguments.string("name") ?? id.rawValue)], by: nil)
            }
            let lifetime = try arguments.string("expires-in").map(TokenCommand.parseDuration) ?? 72 * 3600
            let link = try await OneTimeLink.make(
                for: id, kind: arguments.has("reset") ? .reset : .invite, by: nil, lifetime: lifetime, in: store)
            print(Self.linkText(link, url: arguments.string("url") ?? "http://127.0.0.1:8080"))
            return 0
        case "admin":
            guard rest.count == 1 else { throw UsageError(description: "expected a user id") }
            let id = try UserID.commandLine(rest[0])
            let store = try await ModelStore().openChatStore()
            guard try await store.user(id) != nil else { throw UsageError(description: "no user '\(id)'") }
            try await store.setAdmin(!arguments.has("revoke"), for: id)
            print("\(id) is \(arguments.has("revoke") ? "no longer" : "now") an administrator.")
            return 0
        default:
            throw UsageError(
                description:
                    "unknown action '\(action)': expected add, rename, disable, enable, list, invite or admin")
        }
    }

    /// The link to give, with its expiry.
    static func linkText(_ link: OneTimeLink, url: String) -> String {
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        let expiry = ISO8601DateFormatter().string(
            from: Date(timeIntervalSince1970: Double(link.expiresAt.milliseconds) / 1000))
        return "\(base)\(link.path)\n(works once, until \(expiry))"
    }
}
