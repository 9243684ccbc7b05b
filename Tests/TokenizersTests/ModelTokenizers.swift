import Foundation
import GGUF
import Synchronization
import TestSupport
import Testing

@testable import Tokenizers

/// The tokenizers of the models on disk (found through `RealModels`), loaded once for all tests.
enum ModelTokenizers {
    static let models = [RealModels.smollm, RealModels.qwen]

    private static let loaded = Mutex<[String: Tokenizer]>([:])

    /// The model's tokenizer; a failure (under `scripts/test`) or a skip that says how to fetch
    /// the model if it is absent.
    static func tokenizer(_ model: String) throws -> Tokenizer {
        if let tokenizer = loaded.withLock({ $0[model] }) { return tokenizer }
        let tokenizer = try Tokenizer(gguf: GGUFFile(path: try RealModels.path(model)))
        loaded.withLock { $0[model] = tokenizer }
        return tokenizer
    }
}

/// One golden case written by scripts/make-tokenizer-fixtures.py.
struct FixtureCase: Sendable, CustomTestStringConvertible {
    let model: String
    let text: String
    let parseSpecial: Bool
    let ids: [Int]
    /// llama.cpp's ids where they differ (text that is not NFC, for Qwen2).
    let llamaCppIDs: [Int]?

    var testDescription: String {
        let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return "\(model) \(parseSpecial ? "special" : "plain") \(shown.debugDescription)"
    }

    struct Fixture: Decodable {
        let model: String
        let llama_cpp_end_of_generation: [Int]
        let cases: [Case]
        struct Case: Decodable {
            let text: String
            let parse_special: Bool
            let ids: [Int]
            let llama_cpp_ids: [Int]?
        }
    }

    static func fixture(_ model: String) -> Fixture {
        guard let url = Bundle.module.url(forResource: model, withExtension: "json", subdirectory: "Fixtures"),
            let data = try? Data(contentsOf: url),
            let fixture = try? JSONDecoder().decode(Fixture.self, from: data)
        else {
            preconditionFailure("fixture \(model).json is missing or malformed")
        }
        return fixture
    }

    static let all: [FixtureCase] = ModelTokenizers.models.flatMap { model in
        fixture(model).cases.map {
            FixtureCase(
                model: model, text: $0.text, parseSpecial: $0.parse_special, ids: $0.ids, llamaCppIDs: $0.llama_cpp_ids)
        }
    }
}
