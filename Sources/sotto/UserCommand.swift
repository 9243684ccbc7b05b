import ChatStore
import Foundation
import ModelStore
import Server

/// `sotto user add|rename|list`: the administrator's way to create chat users.
struct UserCommand: Command {
    static let name = "user"
    static let summary = "Create, rename and list chat users (an administrator's act)."
    static let usage = """
        usage: sotto user add <user-id> <display name>
               sotto user rename <user-id> <display name>
               sotto user list

        Works on $SOTTO_HOME/chat.sqlite directly. Display names are unique (case-insensitive)
        and may not hold control or bidirectional-override characters. Sign a user in with
        'sotto token <user-id>'; 'sotto token <user-id> --admin' mints a token that may create
        users through POST /api/users.
        """
    static let valueOptions: Set<String> = []
    static let switchOptions: Set<String> = []

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard let action = arguments.positionals.first else {
            throw UsageError(description: "expected add, rename or list")
        }
        let rest = Array(arguments.positionals.dropFirst())
        switch action {
        case "add", "rename":
            guard rest.count == 2 else { throw UsageError(description: "expected a user id and a display name") }
            let id: UserID
            do {
                id = try UserID.validated(rest[0])
            } catch {
                throw UsageError(description: "\(error)")
            }
            let store = try ModelStore().openChatStore()
            let exists = try await store.user(id) != nil
            if action == "add" && exists {
                throw UsageError(description: "user '\(id)' exists; use 'sotto user rename'")
            }
            if action == "rename" && !exists { throw UsageError(description: "no user '\(id)'; use 'sotto user add'") }
            let user = try await store.upsertUsers([UserUpdate(id: id, name: rest[1])], by: nil)[0]
            print("\(action == "add" ? "Added" : "Renamed") \(user.id) (\"\(user.name)\").")
            return 0
        case "list":
            guard rest.isEmpty else { throw UsageError(description: "list takes no arguments") }
            let store = try ModelStore().openChatStore()
            for user in try await store.allUsers() { print("\(user.id)\t\(user.name)") }
            return 0
        default:
            throw UsageError(description: "unknown action '\(action)': expected add, rename or list")
        }
    }
}
