import Foundation
import Inference
import Kernels
import ModelStore

/// `sotto generate`: one completion, streamed to stdout (or one JSON object with `--json`).
struct GenerateCommand: Command {
    static let name = "generate"
    static let summary = "Generate text from a prompt with a local model."
    static let usage = """
        usage: sotto generate --model M --prompt TEXT [--raw] [--max-tokens N] [--temperature T]
                              [--top-k K] [--top-p P] [--seed S] [--threads N] [--kernels SET]
                              [--verbose] [--json]

        Without --raw the prompt is a user message rendered through the model's chat template;
        with --raw it is tokenized as is, special tokens such as <|im_start|> included.

          --model M          a model id (see `sotto model list`) or a .gguf path
                             (default: $SOTTO_MODEL, else \(ModelCatalog.defaultModelID))
          --prompt TEXT      the prompt (required)
          --raw              do not apply the chat template
          --max-tokens N     generate at most N tokens (default 256)
          --temperature T    0 is greedy (default 0.8)
          --top-k K          keep the K most likely tokens, 0 = off (default 40)
          --top-p P          nucleus threshold, 1 = off (default 0.95)
          --seed S           seed of the random draw (default: random)
          --threads N        compute threads (default: all cores)
          --kernels SET      avx512, avx2, portable or scalar (default: $SOTTO_KERNELS, else the
                             best this CPU runs)
          --verbose          print the model, kernel set and threads to stderr first
          --json             print {"text", "tokens", "prompt_tokens", "prefill_tokens_per_second",
                             "decode_tokens_per_second", "kernels"} instead of streaming text
        """
    static let valueOptions: Set<String> = [
        "model", "prompt", "max-tokens", "temperature", "top-k", "top-p", "seed", "threads", "kernels",
    ]
    static let switchOptions: Set<String> = ["raw", "json", "verbose"]

    struct Output: Encodable {
        let text: String
        let tokens: [Int]
        let prompt_tokens: Int
        let prefill_tokens_per_second: Double
        let decode_tokens_per_second: Double
        let kernels: String
    }

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.isEmpty else {
            throw UsageError(description: "unexpected argument '\(arguments.positionals[0])'")
        }
        guard let promptText = arguments.string("prompt") else { throw UsageError(description: "--prompt is required") }
        let maxTokens = try arguments.int("max-tokens", default: 256)!
        guard maxTokens >= 0 else { throw UsageError(description: "--max-tokens must not be negative") }
        let sampling = try CLIModel.sampling(arguments)
        let threads = try CLIModel.threads(arguments)
        let model = try CLIModel.load(arguments)
        if arguments.has("verbose") {
            CLIModel.log(
                "model \(model.config.architecture), kernels \(model.kernelSet), threads \(threads ?? ThreadPool.shared.threadCount)"
            )
        }

        let prompt =
            arguments.has("raw")
            ? model.tokenizer.encode(promptText, parseSpecial: true)
            : try model.chatFormat.promptTokens(for: [ChatMessage(role: "user", content: promptText)])
        let engine = GenerationEngine(
            model: model, contextLength: CLIModel.contextLength(model, prompt: prompt.count, maxTokens: maxTokens),
            threadCount: threads)
        let json = arguments.has("json")
        var output = ""
        var tokens: [Int] = []
        var summary: GenerationSummary?
        for try await event in engine.generate(
            prompt: prompt, options: DecodingOptions(maxTokens: maxTokens, sampling: sampling))
        {
            switch event {
            case .token(let id, let piece):
                tokens.append(id)
                output += piece
                if !json { CLIModel.write(piece) }
            case .text(let piece):
                output += piece
                if !json { CLIModel.write(piece) }
            case .finished(let done):
                summary = done
            case .promptProcessed:
                break
            }
        }
        if json {
            try CLIModel.printJSON(
                Output(
                    text: output, tokens: tokens, prompt_tokens: prompt.count,
                    prefill_tokens_per_second: summary?.prefillTokensPerSecond ?? 0,
                    decode_tokens_per_second: summary?.decodeTokensPerSecond ?? 0, kernels: model.kernelSet.rawValue))
        } else {
            CLIModel.write("\n")
        }
        return 0
    }
}

/// Model loading and option parsing shared by the model commands.
enum CLIModel {
    /// The data directory and model names of this process (`SOTTO_HOME`, `SOTTO_MODEL`).
    static var store: ModelStore { ModelStore() }

    /// The name `--model` gives, or the default model's (`SOTTO_MODEL`, else the catalog's default).
    static func modelName(_ arguments: Arguments) -> String {
        arguments.string("model") ?? store.defaultModelName
    }

    /// The model `--model` names (an id or a path), or the default model, with repacked weights
    /// kept in the data directory's cache.
    static func load(_ arguments: Arguments, repacking: Bool = true) throws -> Model {
        let kernels = try Self.kernels(arguments)
        let store = store
        let file = try store.resolve(arguments.string("model"))
        return try Model(
            contentsOf: file.url, repacking: repacking, packedWeightsDirectory: store.packedWeightsDirectory,
            kernels: kernels)
    }

    /// `--kernels` (else `SOTTO_KERNELS`, else the best set this CPU runs), checked against this CPU.
    static func kernels(_ arguments: Arguments) throws -> KernelSetID {
        do {
            return try KernelSelection.resolve(arguments.string("kernels"))
        } catch {
            throw CommandFailure(description: error.description)
        }
    }

    /// A line on stderr.
    static func log(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// `--threads`, validated; it sizes the process's one compute pool (default: the cores this
    /// process may use, cgroup quota and affinity included).
    static func threads(_ arguments: Arguments) throws -> Int? {
        guard let threads = try arguments.int("threads") else { return nil }
        guard threads >= 1 && threads <= 255 else {
            throw UsageError(description: "--threads must be between 1 and 255")
        }
        ThreadPool.configureShared(threadCount: threads)
        return threads
    }

    /// Sampling options from `--temperature`, `--top-k`, `--top-p`, `--seed`.
    static func sampling(_ arguments: Arguments) throws -> SamplingOptions {
        var options = SamplingOptions()
        if let t = try arguments.double("temperature") {
            guard t >= 0 else { throw UsageError(description: "--temperature must not be negative") }
            options.temperature = t
        }
        if let k = try arguments.int("top-k") {
            guard k >= 0 else { throw UsageError(description: "--top-k must not be negative") }
            options.topK = k
        }
        if let p = try arguments.double("top-p") {
            guard p > 0 && p <= 1 else { throw UsageError(description: "--top-p must be in (0, 1]") }
            options.topP = p
        }
        if let seed = arguments.string("seed") {
            guard let value = UInt64(seed) else {
                throw UsageError(description: "--seed expects a non-negative integer")
            }
            options.seed = value
        }
        return options
    }

    /// A context that holds the prompt and the reply: at least the default 4096 positions, more
    /// when needed, never more than the model's own. A prompt that cannot fit is reported by the
    /// session before any work.
    static func contextLength(_ model: Model, prompt: Int, maxTokens: Int) -> Int {
        min(model.config.contextLength, max(Evaluator.defaultContextLength, prompt + maxTokens))
    }

    /// Writes `text` to stdout without buffering it.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Prints `value` as one line of JSON.
    static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        write(String(decoding: try encoder.encode(value), as: UTF8.self) + "\n")
    }
}
