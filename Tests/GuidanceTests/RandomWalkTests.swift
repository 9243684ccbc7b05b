import Foundation
import TestSupport
import Testing

@testable import Guidance

/// Property tests: random schemas × random seeds, each output produced by picking random
/// allowed tokens must be JSON that satisfies every constraint of its schema.
struct RandomWalkTests {
    /// The synthetic vocabulary, with every mask compared with a token-by-token check.
    @Test(.onTestThreads, arguments: 0..<8)
    func syntheticVocabulary(batch: Int) throws {
        let index = Fixtures.syntheticIndex
        for seed in 0..<25 {
            var random = SplitMix64(seed: UInt64(batch * 1000 + seed))
            let schema = RandomSchemas.schema(using: &random)
            let grammar = try Grammar(schema: schema)
            let matcher = TokenMatcher(grammar: grammar, index: index)
            for run in 0..<2 {
                let output = try RandomSchemas.walk(matcher, budget: 30, using: &random) { matcher, mask in
                    for token in 0..<index.vocabularySize where mask.contains(token) != matcher.canAccept(token) {
                        Issue.record(
                            "token \(token) \(String(decoding: index.vocabulary.tokenBytes[token], as: UTF8.self).debugDescription): mask \(mask.contains(token))"
                        )
                    }
                }
                RandomSchemas.verify(
                    output, schema, grammar: grammar, context: "batch \(batch) seed \(seed) run \(run)")
            }
        }
    }

    /// Real vocabularies (run in release for speed); every eighth mask is also compared with a
    /// token-by-token check of the whole vocabulary.
    @Test(.onTestThreads, arguments: ["qwen2.5-coder-0.5b", "smollm2-135m"])
    func modelVocabulary(model: String) throws {
        let index = try Fixtures.index(model)
        var checked = 0
        for seed in 0..<60 {
            var random = SplitMix64(seed: UInt64(seed) &* 7919)
            let schema = RandomSchemas.schema(using: &random)
            let grammar = try Grammar(schema: schema)
            let matcher = TokenMatcher(grammar: grammar, index: index)
            let output = try RandomSchemas.walk(matcher, budget: 24, using: &random) { matcher, mask in
                checked += 1
                guard checked % 8 == 0 else { return }
                let wrong = (0..<index.vocabularySize).filter { mask.contains($0) != matcher.canAccept($0) }
                #expect(wrong.isEmpty, "\(model) seed \(seed): mask differs on \(wrong.prefix(8))")
            }
            RandomSchemas.verify(output, schema, grammar: grammar, context: "\(model) seed \(seed)")
        }
    }

    /// Any JSON object (`response_format: json_object`): random walks over the synthetic and a
    /// real vocabulary, masks checked token by token, each end in an object that parses and nests
    /// no deeper than the bound.
    @Test(.onTestThreads) func anyObjectWalksEndInObjectsWithinTheDepth() throws {
        let schema = Schema.anyObject(maximumDepth: Schema.anyObjectDepth)
        let grammar = try Grammar(schema: schema)
        for (name, index) in [
            ("synthetic", Fixtures.syntheticIndex), ("qwen", try Fixtures.index("qwen2.5-coder-0.5b")),
        ] {
            let matcher = TokenMatcher(grammar: grammar, index: index)
            var checked = 0
            for seed in 0..<30 {
                var random = SplitMix64(seed: UInt64(seed) &* 104_729)
                let output = try RandomSchemas.walk(matcher, budget: 80, using: &random) { matcher, mask in
                    checked += 1
                    guard checked % 16 == 0 else { return }
                    let wrong = (0..<index.vocabularySize).filter { mask.contains($0) != matcher.canAccept($0) }
                    #expect(wrong.isEmpty, "\(name) seed \(seed): mask differs on \(wrong.prefix(8))")
                }
                RandomSchemas.verify(output, schema, grammar: grammar, context: "\(name) seed \(seed)")
            }
        }
        #expect(
            grammar.dfa.stateCount < 100_000,
            "the depth-\(Schema.anyObjectDepth) automaton has \(grammar.dfa.stateCount) states")
    }
}
