import Foundation
import GGUF
import TestSupport
import Testing

@testable import Tokenizers

/// Prints load time and encode throughput; asserts only that the work was done (speed is
/// reported, never asserted). Set SOTTO_TOKENIZER_BENCH_FILE to measure a file of your own.
@Test("benchmark: load and encode throughput", .onTestThreads, arguments: ModelTokenizers.models)
func tokenizerBenchmark(_ model: String) throws {
    let file = try GGUFFile(path: try RealModels.path(model))
    let clock = ContinuousClock()
    var tokenizer: Tokenizer?
    let load = clock.measure { tokenizer = try? Tokenizer(gguf: file) }
    let t = try #require(tokenizer)

    let text: String
    if let path = ProcessInfo.processInfo.environment["SOTTO_TOKENIZER_BENCH_FILE"] {
        text = try String(contentsOfFile: path, encoding: .utf8)
    } else {
        // The fixture corpus, each copy numbered so that words vary, to about 2 MB.
        let corpus = FixtureCase.all.filter { $0.model == model && !$0.parseSpecial }.map(\.text).joined(
            separator: "\n")
        var parts: [String] = []
        var size = 0
        var n = 0
        while size < 2_000_000 {
            let part = "\(n) " + corpus
            parts.append(part)
            size += part.utf8.count
            n += 1
        }
        text = parts.joined()
    }
    _ = t.encode(String(text.prefix(1000)))  // first use builds the Unicode class table
    var ids: [Int] = []
    let cpuStart = threadCPUSeconds()
    let encode = clock.measure { ids = t.encode(text) }
    let cpu = threadCPUSeconds() - cpuStart
    let seconds = Double(encode.components.attoseconds) / 1e18 + Double(encode.components.seconds)
    let megabytes = Double(text.utf8.count) / 1e6
    let loadMs = (Double(load.components.attoseconds) / 1e18 + Double(load.components.seconds)) * 1000
    // Tests run in parallel: the thread's CPU time is the fairer single-core figure.
    print(
        "tokenizer \(model): load \(String(format: "%.1f", loadMs)) ms; encode \(String(format: "%.2f", megabytes)) MB "
            + "-> \(ids.count) tokens: \(String(format: "%.1f", megabytes / seconds)) MB/s wall, "
            + "\(String(format: "%.1f", megabytes / cpu)) MB/s per CPU second")
    #expect(ids.count > text.utf8.count / 10)
}

private func threadCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}
