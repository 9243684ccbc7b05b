import Foundation
import Inference
import ModelStore

/// `sotto tokenize`: the token ids of a text, nothing added, special-token text not parsed.
struct TokenizeCommand: Command {
    static let name = "tokenize"
    static let summary = "Print the token ids of a text."
    static let usage = """
        usage: sotto tokenize --model M [--text TEXT] [--json]

        Tokenizes TEXT (or standard input) with the model's tokenizer: no BOS/EOS added, and text
        like <|im_start|> is ordinary text, not a special token. Prints the ids separated by spaces.

          --model M     a model id or a .gguf path (default: $SOTTO_MODEL, else \(ModelCatalog.defaultModelID))
          --text TEXT   the text (default: all of standard input)
          --json        print {"tokens": [...]}
        """
    static let valueOptions: Set<String> = ["model", "text"]
    static let switchOptions: Set<String> = ["json"]

    struct Output: Encodable {
        let tokens: [Int]
    }

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.isEmpty else {
            throw UsageError(description: "unexpected argument '\(arguments.positionals[0])'")
        }
        let tokenizer = try Model.tokenizer(contentsOf: try CLIModel.store.resolve(arguments.string("model")).url)
        let text: String
        if let given = arguments.string("text") {
            text = given
        } else {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        }
        let tokens = tokenizer.encode(text, parseSpecial: false)
        if arguments.has("json") {
            try CLIModel.printJSON(Output(tokens: tokens))
        } else {
            print(tokens.map(String.init).joined(separator: " "))
        }
        return 0
    }
}
