import Foundation

/// Golden outputs from llama.cpp for one model, made by `scripts/make-llama-fixtures.py`.
struct LlamaFixture: Decodable {
    struct Case: Decodable, CustomStringConvertible {
        let name: String
        let kind: String
        let text: String
        let prompt: [Int]
        let greedy: [Int]
        let gaps: [Double]
        let runner_up: [Int]
        /// `[id, logit]` pairs, highest first.
        let top_logits: [[Double]]

        var description: String { name }
    }

    /// llama.cpp's final hidden state for a prompt, on the model cut to `truncated_layers` F32 blocks.
    struct Hidden: Decodable, CustomStringConvertible {
        let name: String
        let prompt: [Int]
        let state: [Float]

        var description: String { name }
    }

    let model: String
    let generator: String
    let cases: [Case]
    let truncated_layers: Int
    let hidden: [Hidden]

    static func load(_ model: String) throws -> LlamaFixture {
        guard let url = Bundle.module.url(forResource: model, withExtension: "json", subdirectory: "Fixtures") else {
            throw MissingFixture(description: "fixture \(model).json is missing; run scripts/make-llama-fixtures.py")
        }
        return try JSONDecoder().decode(LlamaFixture.self, from: Data(contentsOf: url))
    }
}

/// A committed fixture is not in the test bundle.
struct MissingFixture: Error, CustomStringConvertible {
    let description: String
}
