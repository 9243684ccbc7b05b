import Foundation
import Inference
import ModelStore

/// `sotto bench`: prefill and decode speed (llama-bench's pp/tg), load time and memory.
struct BenchCommand: Command {
    static let name = "bench"
    static let summary = "Measure prefill and decode speed of a model."
    static let usage = """
        usage: sotto bench --model M [--prompt-tokens 512] [--gen-tokens 128] [--threads N]
                           [--repetitions R] [--kernels SET] [--json]

        Loads the model, evaluates a prompt of N pseudo-random tokens in one batch (prefill), then
        decodes M tokens one at a time from a fresh cache, greedy (as llama-bench's pp and tg tests).

          --model M           a model id or a .gguf path (default: $SOTTO_MODEL, else \(ModelCatalog.defaultModelID))
          --prompt-tokens N   prompt length (default 512)
          --gen-tokens M      decoded tokens (default 128)
          --threads N         compute threads (default: all cores)
          --repetitions R     run R times and report the best (default 1)
          --kernels SET       avx512, avx2, portable or scalar (default: $SOTTO_KERNELS, else the
                              best this CPU runs)
          --json              print one JSON object (prefill_tokens_per_second,
                              decode_tokens_per_second, kernels, load_seconds, resident_bytes, …)
        """
    static let valueOptions: Set<String> = [
        "model", "prompt-tokens", "gen-tokens", "threads", "repetitions", "kernels",
    ]
    static let switchOptions: Set<String> = ["json"]

    struct Output: Encodable {
        let model: String
        let threads: Int
        /// The kernel set that ran (`avx512`, `avx2`, `portable`, `scalar`).
        let kernels: String
        let prompt_tokens: Int
        let gen_tokens: Int
        let prefill_tokens_per_second: Double
        let decode_tokens_per_second: Double
        let load_seconds: Double
        let weight_bytes_per_token: Int
        let kv_cache_bytes: Int
        /// Resident memory of the process after the runs (VmRSS), 0 where unknown.
        let resident_bytes: Int
        /// Peak resident memory (VmHWM), which includes the transient copy made while repacking.
        let peak_resident_bytes: Int
    }

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.isEmpty else {
            throw UsageError(description: "unexpected argument '\(arguments.positionals[0])'")
        }
        let promptTokens = try arguments.int("prompt-tokens", default: 512)!
        let genTokens = try arguments.int("gen-tokens", default: 128)!
        let repetitions = try arguments.int("repetitions", default: 1)!
        guard promptTokens >= 1 else { throw UsageError(description: "--prompt-tokens must be at least 1") }
        guard genTokens >= 0 else { throw UsageError(description: "--gen-tokens must not be negative") }
        guard repetitions >= 1 else { throw UsageError(description: "--repetitions must be at least 1") }
        let threads = try CLIModel.threads(arguments)
        let name = CLIModel.modelName(arguments)
        let start = ContinuousClock.now
        let model = try CLIModel.load(arguments)
        let loadSeconds = seconds(ContinuousClock.now - start)
        guard promptTokens + genTokens <= model.config.contextLength else {
            throw CommandFailure(
                description:
                    "\(promptTokens) + \(genTokens) tokens exceed the model's context of \(model.config.contextLength)")
        }
        let result = try Benchmark.run(
            model: model, promptTokens: promptTokens, generatedTokens: genTokens, threads: threads,
            repetitions: repetitions)
        let output = Output(
            model: name, threads: result.threads, kernels: model.kernelSet.rawValue, prompt_tokens: promptTokens,
            gen_tokens: genTokens,
            prefill_tokens_per_second: result.prefillTokensPerSecond,
            decode_tokens_per_second: result.decodeTokensPerSecond, load_seconds: loadSeconds,
            weight_bytes_per_token: result.weightBytesPerToken, kv_cache_bytes: result.cacheBytes,
            resident_bytes: memoryStatus("VmRSS:"), peak_resident_bytes: memoryStatus("VmHWM:"))
        if arguments.has("json") {
            try CLIModel.printJSON(output)
        } else {
            print("model        \(name) (\(result.threads) threads, \(model.kernelSet) kernels)")
            print(String(format: "load         %.0f ms", loadSeconds * 1000))
            print(String(format: "prefill      %.1f tok/s (pp%d)", output.prefill_tokens_per_second, promptTokens))
            print(String(format: "decode       %.1f tok/s (tg%d)", output.decode_tokens_per_second, genTokens))
            print(String(format: "weights/tok  %.1f MB", Double(output.weight_bytes_per_token) / 1e6))
            print(String(format: "KV cache     %.1f MB", Double(output.kv_cache_bytes) / 1e6))
            print(
                String(
                    format: "resident     %.1f MB (peak %.1f MB)", Double(output.resident_bytes) / 1e6,
                    Double(output.peak_resident_bytes) / 1e6))
        }
        return 0
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// A `/proc/self/status` field given in kB (`VmRSS:`, `VmHWM:`), in bytes; 0 where unknown.
    static func memoryStatus(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            let digits = line.split(separator: " ").compactMap { Int($0) }
            return (digits.first ?? 0) * 1024
        }
        return 0
    }
}
