import Foundation

/// A command-line usage error: printed with the command's usage and exit code 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
}

/// A failure while running a command: printed to stderr, exit code 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
}

/// Parsed `--flag value`, `--switch` and positional arguments of one command.
///
/// Each command declares which options take a value and which are switches, so an unknown flag
/// is reported instead of being taken as a value.
struct Arguments {
    private(set) var values: [String: String] = [:]
    private(set) var switches: Set<String> = []
    private(set) var positionals: [String] = []

    init(_ raw: [String], valueOptions: Set<String>, switchOptions: Set<String>) throws {
        var index = 0
        while index < raw.count {
            let argument = raw[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if switchOptions.contains(name) {
                guard inlineValue == nil else { throw UsageError(description: "--\(name) takes no value") }
                switches.insert(name)
            } else if valueOptions.contains(name) {
                if let inlineValue {
                    values[name] = inlineValue
                } else {
                    guard index < raw.count else { throw UsageError(description: "--\(name) needs a value") }
                    values[name] = raw[index]
                    index += 1
                }
            } else {
                throw UsageError(description: "unknown option --\(name)")
            }
        }
    }

    func has(_ name: String) -> Bool { switches.contains(name) }

    func string(_ name: String) -> String? { values[name] }

    func int(_ name: String, default fallback: Int? = nil) throws -> Int? {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text) else {
            throw UsageError(description: "--\(name) expects an integer, got '\(text)'")
        }
        return value
    }

    func double(_ name: String, default fallback: Double? = nil) throws -> Double? {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text), value.isFinite else {
            throw UsageError(description: "--\(name) expects a number, got '\(text)'")
        }
        return value
    }
}

/// One `sotto` subcommand.
protocol Command: Sendable {
    /// The word after `sotto`, e.g. `generate`.
    static var name: String { get }
    /// One line for `sotto --help`.
    static var summary: String { get }
    /// Full usage text for `sotto <name> --help`.
    static var usage: String { get }
    static var valueOptions: Set<String> { get }
    static var switchOptions: Set<String> { get }
    /// Runs the command; returns the process exit code.
    static func run(_ arguments: Arguments) async throws -> Int32
}

/// Writes to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
