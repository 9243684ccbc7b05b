import Foundation
import LoadGeneration

// sotto-loadgen CONFIG.json: the load `scripts/loadtest` asks for, phase by phase on stdout
// (see LoadGeneration's LoadRun). Errors go to stderr with exit status 1.
let arguments = CommandLine.arguments
guard arguments.count == 2, !arguments[1].hasPrefix("-") else {
    FileHandle.standardError.write(Data("usage: sotto-loadgen CONFIG.json (written by scripts/loadtest)\n".utf8))
    exit(2)
}
do {
    try runLoad(configurationPath: arguments[1])
    exit(0)
} catch {
    FileHandle.standardError.write(Data("sotto-loadgen: \(error)\n".utf8))
    exit(1)
}
