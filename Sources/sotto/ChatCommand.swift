import Foundation
import Inference
import ModelStore

/// `sotto chat`: an interactive terminal chat that streams replies and keeps the KV cache between
/// turns, so each turn only evaluates the new messages.
struct ChatCommand: Command {
    static let name = "chat"
    static let summary = "Chat with a local model in the terminal."
    static let usage = """
        usage: sotto chat --model M [--system TEXT] [--max-tokens N] [--temperature T] [--seed S]
                          [--threads N] [--kernels SET]

        Type a message and press Enter; the reply streams as it is generated. Empty line: nothing.
        /reset starts over, /exit (or end of input) quits.

          --model M          a model id or a .gguf path (default: $SOTTO_MODEL, else \(ModelCatalog.defaultModelID))
          --system TEXT      a system message for the conversation
          --max-tokens N     longest reply in tokens (default 1024)
          --temperature T    0 is greedy (default 0.8)
          --seed S           seed of the random draw (default: random)
          --threads N        compute threads (default: all cores)
          --kernels SET      avx512, avx2, portable or scalar (default: $SOTTO_KERNELS, else the
                             best this CPU runs)
        """
    static let valueOptions: Set<String> = [
        "model", "system", "max-tokens", "temperature", "seed", "threads", "kernels",
    ]
    static let switchOptions: Set<String> = []

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.isEmpty else {
            throw UsageError(description: "unexpected argument '\(arguments.positionals[0])'")
        }
        let maxTokens = try arguments.int("max-tokens", default: 1024)!
        guard maxTokens >= 1 else { throw UsageError(description: "--max-tokens must be at least 1") }
        let sampling = try CLIModel.sampling(arguments)
        let threads = try CLIModel.threads(arguments)
        let model = try CLIModel.load(arguments)
        try model.chatFormat.checkTemplate()  // fail now, not after the first message
        let engine = GenerationEngine(model: model, threadCount: threads)
        let interactive = isatty(STDIN_FILENO) != 0
        let system = arguments.string("system").map { [ChatMessage(role: "system", content: $0)] } ?? []
        var messages = system
        if interactive {
            printError(
                "Chatting with \(CLIModel.modelName(arguments)). /exit quits, /reset starts over."
            )
        }

        while true {
            if interactive { CLIModel.write("> ") }
            guard let line = readLine(strippingNewline: true) else { break }
            let input = line.trimmingCharacters(in: .whitespaces)
            if input.isEmpty { continue }
            if input == "/exit" || input == "/quit" { break }
            if input == "/reset" {
                messages = system
                continue
            }
            messages.append(ChatMessage(role: "user", content: input))
            // The engine's one prompt path: the server builds the same tokens for this conversation.
            let prompt = try model.chatFormat.promptTokens(for: messages)
            var reply = ""
            do {
                for try await event in engine.generate(
                    prompt: prompt, options: DecodingOptions(maxTokens: maxTokens, sampling: sampling))
                {
                    switch event {
                    case .token(_, let text), .text(let text):
                        reply += text
                        CLIModel.write(text)
                    case .promptProcessed, .finished:
                        break
                    }
                }
            } catch InferenceError.promptTooLong(let tokens, let context) {
                printError(
                    "\nThe conversation (\(tokens) tokens) no longer fits the \(context)-token context; /reset to start over."
                )
                messages.removeLast()
                continue
            }
            CLIModel.write("\n")
            messages.append(ChatMessage(role: "assistant", content: reply))
        }
        return 0
    }
}
