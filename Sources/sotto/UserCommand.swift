import ChatStore
import Foundation
import ModelStore
import Server

/// `sotto user add|rename|list|disable|enable`: the administrator's way to manage chat users.
struct UserCommand: Command {
    static let name = "user"
    static let summary = "Create, rename, list, disable and enable chat users (an administrator's act)."
    static let usage = """
        usage: sotto user add <user-id> <display name>
               sotto user rename <user-id> <display name>
               sotto user disable <user-id>
               sotto user enable <user-id>
               sotto user list

        Works on $SOTTO_HOME/chat.sqlite directly. Display names are unique (case-insensitive)
        and may not hold control, invisible or bidirectional characters, nor mix scripts within
        a word (Latin with Cyrillic or Greek letters: a lookalike of another name). Sign a user
        in with 'sotto token <user-id>'; 'sotto token <user-id> --admin' mints a token that may
        create users through POST /api/users.

        A disabled user's every request is refused (401 user_disabled) and a running server
        closes their sockets within a second; 'enable' lets their tokens work again (those not
        revoked with 'sotto token revoke').
        """
    static let valueOptions: Set<String> = []
    static let switchOptions: Set<String> = []

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard let action = arguments.positionals.first else {
            throw UsageError(description: "expected add, rename, disable, enable or list")
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
        default:
            throw UsageError(description: "unknown action '\(action)': expected add, rename, disable, enable or list")
        }
    }
}
