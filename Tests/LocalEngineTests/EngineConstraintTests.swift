import Foundation
import FoundationModels
import GenerableFixtures
import Guidance
import Inference
import LocalEngine
import TestSupport
import Testing
import Tokenizers

/// The pieces between the API and the engine, driven token by token without running a model:
/// schema mapping, the grammar constraint, tool-call turns, prompts and sampling options.
extension EngineTests {
    @Suite struct SchemaMapping {
        @Test(.onTestThreads) func everyNodeMapsOneToOne() throws {
            let node = SchemaNode.object(
                ObjectNode(
                    name: "T", description: nil,
                    properties: [
                        SchemaProperty(
                            name: "s", description: nil, node: .string(StringConstraints(pattern: "[a-z]+")),
                            isOptional: false),
                        SchemaProperty(
                            name: "c", description: nil, node: .string(StringConstraints(choices: ["x", "y"])),
                            isOptional: true),
                        SchemaProperty(
                            name: "i", description: nil, node: .integer(minimum: 1, maximum: 5), isOptional: false),
                        SchemaProperty(
                            name: "n", description: nil, node: .number(minimum: nil, maximum: 2.5), isOptional: false),
                        SchemaProperty(
                            name: "a", description: nil,
                            node: .array(element: .boolean, minimumCount: 2, maximumCount: 2), isOptional: false),
                        SchemaProperty(
                            name: "e", description: nil,
                            node: .enumeration(name: "E", description: nil, cases: ["p", "q"]), isOptional: false),
                        SchemaProperty(
                            name: "u", description: nil,
                            node: .anyOf(name: nil, description: nil, choices: [.null, .boolean]), isOptional: false),
                    ]))
            let expected = Schema.object([
                .init("s", .string(pattern: "[a-z]+")),
                .init("c", .string(choices: ["x", "y"]), isOptional: true),
                .init("i", .integer(min: 1, max: 5)),
                .init("n", .number(max: 2.5)),
                .init("a", .array(.boolean, minCount: 2, maxCount: 2)),
                .init("e", .string(choices: ["p", "q"])),
                .init("u", .anyOf([.null, .boolean])),
            ])
            #expect(try node.guidanceSchema() == expected)
        }

        @Test(.onTestThreads) func generableTypesCompileToGrammars() throws {
            for schema in [
                ReplySuggestions.generationSchema, SearchSuggestions.generationSchema, Story.generationSchema,
                TreeNode.generationSchema,
            ] {
                let grammar = try Grammar(schema: try schema.guidanceSchema())
                #expect(grammar.stateCount > 1)
            }
            let story = try Grammar(schema: try Story.generationSchema.guidanceSchema())
            #expect(story.acceptsPrefix(bytes: Array(#"{"title": "A", "characters": [{"name": "B", "age": 3"#.utf8)))
            #expect(!story.acceptsPrefix(bytes: Array(#"{"title": "A", "characters": []"#.utf8)))
        }

        @Test(.onTestThreads) func anyValueAndBadPatternsAreUnsupportedGuides() throws {
            #expect(throws: LanguageModelSession.GenerationError.self) { try SchemaNode.anyValue.guidanceSchema() }
            let schema = GenerationSchema(root: .string(StringConstraints(pattern: "(?=x)a")))
            #expect {
                _ = try Grammar(schema: try schema.guidanceSchema())
            } throws: { $0 is GuidanceError }
        }
    }

    @Suite
    struct Constraint {
        let loaded: LoadedModel
        let index: VocabularyIndex

        init() async throws {
            loaded = try await LocalEngineHost.shared.registry.model(path: try RealModels.path(RealModels.smollm))
            index = loaded.vocabularyIndex
        }

        func constraint(_ schema: Schema, budget: Int? = nil) throws -> GrammarConstraint {
            GrammarConstraint(
                grammar: try Grammar(schema: schema), index: index, tokenizer: loaded.model.tokenizer, budget: budget)
        }

        func mask(_ constraint: GrammarConstraint) -> TokenMask {
            var mask = TokenMask(vocabularySize: loaded.model.config.vocabularySize, allowingAll: true)
            #expect(constraint.restrict(&mask))
            return mask
        }

        /// At a word bound, when the model wants a new word, the current one is not run on.
        @Test(.onTestThreads) func aRefusedNewWordEndsTheWordInsteadOfGluingTheNext() throws {
            let tokenizer = loaded.model.tokenizer
            let constraint = try constraint(.string(pattern: "[a-z]+( [a-z]+)?"))
            let forced = constraint.forcedTokens()  // the opening quote, unless left to sampling
            for token in forced { try constraint.accept(token) }
            for token in tokenizer.encode(forced.isEmpty ? "\"me to" : "me to", parseSpecial: false) {
                try constraint.accept(token)
            }
            let glued = try #require(tokenizer.encode("help", parseSpecial: false).first)
            let spaced = try #require(tokenizer.encode(" help", parseSpecial: false).first)
            let quote = try #require(tokenizer.encode("\"", parseSpecial: false).first)
            #expect(constraint.refinesRefusals)

            var unrefined = mask(constraint)
            #expect(!unrefined.contains(spaced) && unrefined.contains(glued) && unrefined.contains(quote))
            let before = unrefined
            constraint.refine(&unrefined, refusing: glued)  // not a new word: nothing to do
            #expect(unrefined == before)

            var refined = mask(constraint)
            constraint.refine(&refined, refusing: spaced)
            #expect(!refined.contains(glued))
            #expect(refined.contains(quote))
            #expect(refined.allowedCount < before.allowedCount)
        }

        @Test(.onTestThreads) func structuralTextIsForcedAsWholeTokens() throws {
            let constraint = try constraint(.object([.init("replies", .array(.string(), minCount: 3, maxCount: 3))]))
            let forced = constraint.forcedTokens()
            let text = loaded.model.tokenizer.decode(forced)
            // `{"replies": ["` less its last token, which is left to sampling.
            #expect(!forced.isEmpty)
            #expect(#"{"replies": [""#.hasPrefix(text))
            #expect(text.count < #"{"replies": [""#.count)
            for token in forced { try constraint.accept(token) }
            let allowed = mask(constraint)
            let tokenizer = loaded.model.tokenizer
            for id in 0..<tokenizer.vocabularySize where allowed.contains(id) {
                let candidate = text + tokenizer.decode([id])
                #expect(constraint.matcher.grammar.acceptsPrefix(bytes: Array(candidate.utf8)), "\(candidate)")
            }
            #expect(!allowed.contains(tokenizer.eosTokenID ?? -1))
        }

        @Test(.onTestThreads) func theEndTokenIsAllowedOnlyWhereTheOutputCanEnd() throws {
            let constraint = try constraint(.integer(min: 0, max: 500))
            let tokenizer = loaded.model.tokenizer
            let end = try #require(tokenizer.endOfGenerationTokenIDs.min())
            #expect(!mask(constraint).contains(end))
            for token in tokenizer.encode("42") { try constraint.accept(token) }
            #expect(constraint.canEnd && !constraint.isComplete)
            #expect(mask(constraint).contains(end))
            try constraint.accept(end)
            #expect(constraint.isComplete)
        }

        @Test(.onTestThreads) func refusedTokensThrow() throws {
            let constraint = try constraint(.boolean)
            #expect(throws: GuidanceError.self) { try constraint.accept(loaded.model.tokenizer.encode("7")[0]) }
        }

        @Test(.onTestThreads) func theEnginesMaskIsClearedPastTheVocabulary() throws {
            let constraint = try constraint(.string())
            let allowed = mask(constraint)
            #expect(allowed.vocabularySize == loaded.model.config.vocabularySize)
            for id in loaded.model.tokenizer.vocabularySize..<allowed.vocabularySize { #expect(!allowed.contains(id)) }
        }

        /// Any token the mask allows, picked at random (long tokens inside strings are the most
        /// numerous): the output always completes within the budget and satisfies the schema.
        @Test(.onTestThreads) func randomWalksFinishValidWithinTheirBudget() throws {
            var random = SplitMix64(seed: 7)
            let tokenizer = loaded.model.tokenizer
            for round in 0..<200 {
                let root = RandomSchema.node(depth: 0, random: &random)
                let schema = try GenerationSchema(root: root).guidanceSchema()
                let probe = TokenMatcher(grammar: try Grammar.shared(for: schema), index: index)
                let budget = probe.minimumBytesToComplete + random.below(12)
                let constraint = GrammarConstraint(
                    grammar: try Grammar.shared(for: schema), index: index, tokenizer: tokenizer, budget: budget)
                var output: [Int] = []
                var used = 0
                walk: while !constraint.isComplete && used < budget {
                    var chosen = constraint.forcedTokens()
                    if chosen.isEmpty {
                        let allowed = mask(constraint)
                        let ids = (0..<allowed.vocabularySize).filter(allowed.contains)
                        chosen = [
                            try #require(
                                ids.isEmpty ? nil : ids[random.below(ids.count)], "round \(round): nothing allowed")
                        ]
                    }
                    for token in chosen {
                        try constraint.accept(token)
                        used += 1
                        if tokenizer.endOfGenerationTokenIDs.contains(token) { break walk }
                        output.append(token)
                        if used == budget { break walk }
                    }
                }
                let text = tokenizer.decode(output)
                let content = try GeneratedContent(json: text + "\n")
                #expect(SchemaCheck.problem(content, root, path: "$") == nil, "round \(round): \(text) for \(root)")
                #expect(used <= budget)
            }
        }
    }

    @Suite struct Sampling {
        @Test(.onTestThreads) func optionsMapToTheSamplerChain() {
            #expect(GenerationOptions(sampling: .greedy, temperature: 0.9).samplingOptions == .greedy)
            #expect(GenerationOptions(temperature: 0).samplingOptions.isGreedy)
            let topK = GenerationOptions(sampling: .random(top: 5, seed: 9), temperature: 0.5).samplingOptions
            #expect(topK == SamplingOptions(temperature: 0.5, topK: 5, topP: 1, minP: 0, seed: 9))
            let nucleus = GenerationOptions(sampling: .random(probabilityThreshold: 0.8)).samplingOptions
            #expect(nucleus == SamplingOptions(temperature: 1, topK: 0, topP: 0.8, minP: 0, seed: nil))
            #expect(GenerationOptions().samplingOptions == SamplingOptions())
            #expect(GenerationOptions(temperature: 0.3).samplingOptions.temperature == 0.3)
            #expect(GenerationOptions(maximumResponseTokens: 50).responseTokenLimit(available: 30) == 30)
            #expect(GenerationOptions(maximumResponseTokens: 50).responseTokenLimit(available: 300) == 50)
            #expect(GenerationOptions().responseTokenLimit(available: 300) == 300)
        }
    }
}
