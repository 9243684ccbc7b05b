import ChatStore
import Foundation
import ModelStore
import Server

/// `sotto seed demo`: creates the demo users, channel and conversation.
struct SeedCommand: Command {
    static let name = "seed"
    static let summary = "Create demo chat data (sotto seed demo)."
    static let usage = """
        usage: sotto seed demo

        Creates users alice ("Alice") and bob ("Bob"), the channel messaging:weekend-hike
        ("Weekend Hike") with both, and eight messages about a weekend hike, in
        $SOTTO_HOME/chat.sqlite. Running it again changes nothing.
        """
    static let valueOptions: Set<String> = []
    static let switchOptions: Set<String> = []

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals == ["demo"] else { throw UsageError(description: "the only data set is 'demo'") }
        let store = try await ModelStore().openChatStore()
        let created = try await DemoSeed.seed(into: store)
        print("Seeded \(DemoSeed.channel) (\"\(DemoSeed.channelName)\") for alice and bob: \(created) new messages.")
        print("Sign in with the output of: sotto token alice   (or: sotto token bob)")
        return 0
    }
}
