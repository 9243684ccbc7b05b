import Foundation

/// Every subcommand, in the order `sotto --help` lists them.
let commands: [any Command.Type] = [
    VersionCommand.self, ModelCommand.self, GenerateCommand.self, ChatCommand.self, TokenizeCommand.self,
    TranscribeCommand.self,
    BenchCommand.self, ServeCommand.self, EngineCommand.self, UserCommand.self, TokenCommand.self, SeedCommand.self,
    DatabaseCommand.self,
]

struct VersionCommand: Command {
    static let name = "version"
    static let summary = "Print Sotto's version."
    static let usage = "usage: sotto version"
    static let valueOptions: Set<String> = []
    static let switchOptions: Set<String> = []
    static func run(_ arguments: Arguments) async throws -> Int32 {
        print("sotto 0.1.0")
        return 0
    }
}

@main
enum Sotto {
    static func main() async {
        let raw = Array(CommandLine.arguments.dropFirst())
        exit(await dispatch(raw))
    }

    static func overview() -> String {
        var lines = ["usage: sotto <command> [options]", "", "Private, local AI for chat software.", "", "commands:"]
        let width = commands.map { $0.name.count }.max() ?? 0
        for command in commands {
            lines.append(
                "  " + command.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + command.summary)
        }
        lines.append("")
        lines.append("Run 'sotto <command> --help' for a command's options.")
        return lines.joined(separator: "\n")
    }

    static func dispatch(_ raw: [String]) async -> Int32 {
        guard let first = raw.first else {
            printError(overview())
            return 2
        }
        if first == "--help" || first == "-h" || first == "help" {
            print(overview())
            return 0
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            printError("sotto: unknown command '\(first)'\n\n" + overview())
            return 2
        }
        let rest = Array(raw.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            print(command.usage)
            return 0
        }
        do {
            let arguments = try Arguments(
                rest, valueOptions: command.valueOptions, switchOptions: command.switchOptions)
            return try await command.run(arguments)
        } catch let error as UsageError {
            printError("sotto \(command.name): \(error.description)\n\n\(command.usage)")
            return 2
        } catch {
            printError("sotto \(command.name): \(error)")
            return 1
        }
    }
}
