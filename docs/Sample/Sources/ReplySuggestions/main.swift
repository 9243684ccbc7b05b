import Foundation
import FoundationModels

// Usage: ReplySuggestions [REPEATS]
// Asks for reply suggestions REPEATS times (default 3), each in a fresh generator, and prints
// each request's wall-clock time and the median: scripts/bench-app compares a debug build of
// this app with a release one.

let repeats = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 3
let conversation = [
    "Ana: Are we still on for lunch tomorrow?",
    "Ben: Yes! Where do you want to go?",
    "Ana: How about the new ramen place near the station at 12:30?",
]

guard SystemLanguageModel.default.isAvailable else {
    print("The model is unavailable: \(SystemLanguageModel.default.availability)")
    exit(1)
}

var times: [Double] = []
for run in 1...max(1, repeats) {
    let generator = ReplySuggestionGenerator()
    let clock = ContinuousClock()
    let start = clock.now
    let usage = try await generator.suggest(for: conversation)
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    times.append(seconds)
    let suggestions = generator.suggestions
    print(
        "run \(run): \(String(format: "%.3f", seconds)) s, \(usage.input.totalTokenCount) in / "
            + "\(usage.output.totalTokenCount) out: \(suggestions)")
}
let median = times.sorted()[times.count / 2]
print("median: \(String(format: "%.3f", median)) s")
