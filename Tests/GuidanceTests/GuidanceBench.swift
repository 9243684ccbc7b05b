import Foundation
import TestSupport
import Testing
import Tokenizers

@testable import Guidance

/// Speed figures (thread CPU time), printed and never asserted. Meaningful in release:
/// `swift test -c release -Xswiftc -enable-testing --filter GuidanceBench`. Debug builds skip
/// them unless `SOTTO_BENCH` is set.
@Suite(.serialized, .enabled(if: benchmarksEnabled))
struct GuidanceBench {
    /// Realistic outputs for realistic schemas: each is tokenized by the model's tokenizer and fed
    /// token by token, timing the mask at every step as a generation would.
    static let documents: [(name: String, schema: Schema, text: String)] = [
        (
            "reply suggestions",
            .object([.init("replies", .array(.string(), minCount: 3, maxCount: 3))]),
            #"{"replies": ["Sure, meet me at the trailhead at 7am!", "Good idea! I'll bring water, snacks, and sunscreen.", "I'll be ready! Let's go on the hike!"]}"#
        ),
        (
            "search terms",
            .object([.init("terms", .array(.string(maxLength: 40), minCount: 4, maxCount: 4))]),
            #"{"terms": ["weekend hike", "trailhead parking", "sunscreen", "7am meeting"]}"#
        ),
        (
            "people",
            .object([
                .init(
                    "people",
                    .array(
                        .object([
                            .init("name", .string(maxLength: 30)), .init("age", .integer(min: 0, max: 120)),
                            .init("city", .string(), isOptional: true),
                        ]), minCount: 1, maxCount: 6))
            ]),
            #"{"people": [{"name": "Alice Martin", "age": 34, "city": "Lyon"}, {"name": "Bob", "age": 27}, {"name": "Chloé Dubois", "age": 61, "city": "Montréal"}]}"#
        ),
        (
            "ticket",
            .object([
                .init("id", .string(pattern: "[A-Z]{3}-\\d{4}")),
                .init("priority", .string(choices: ["low", "medium", "high", "urgent"])),
                .init("estimate", .number(min: 0, max: 100)), .init("done", .boolean),
                .init("tags", .array(.string(pattern: "[a-z][a-z0-9-]{0,15}"), maxCount: 5)),
                .init("summary", .string(maxLength: 120)),
            ]),
            #"{"id": "OPS-1234", "priority": "high", "estimate": 3.5, "done": false, "tags": ["backend", "db-migration"], "summary": "Rotate the database credentials before Friday's release and update the runbook."}"#
        ),
    ]

    @Test(.onTestThreads, arguments: ["qwen2.5-coder-0.5b", "smollm2-135m"])
    func maskTimes(model: String) throws {
        let tokenizer = try Fixtures.tokenizer(model)
        var clock = cpuMicros()
        let vocabulary = Vocabulary(tokenizer: tokenizer)
        let vocabularyTime = cpuMicros() - clock
        clock = cpuMicros()
        let index = VocabularyIndex(vocabulary)
        let indexTime = cpuMicros() - clock
        print(
            "[GuidanceBench] \(model): \(index.vocabularySize) tokens, Vocabulary(tokenizer:) \(ms(vocabularyTime)), "
                + "VocabularyIndex \(ms(indexTime)) (\(index.nodeCount) trie nodes, \(index.restTokenCount) tokens outside slices)"
        )

        var coldAll: [Double] = []
        var warmAll: [Double] = []
        for document in Self.documents {
            clock = cpuMicros()
            let grammar = try Grammar(schema: document.schema)
            let compileTime = cpuMicros() - clock
            let tokens = tokenizer.encode(document.text)
            let matcher = TokenMatcher(grammar: grammar, index: index)
            var mask = TokenMask(vocabularySize: index.vocabularySize)
            var cold: [Double] = []
            var warm: [Double] = []
            var apply: [Double] = []
            var logits = [Float](repeating: 0, count: index.vocabularySize)
            for pass in 0..<2 {
                matcher.reset()
                for token in tokens + [vocabulary.endOfGenerationTokenIDs.min()!] {
                    let start = cpuMicros()
                    matcher.fillMask(&mask)
                    let elapsed = cpuMicros() - start
                    if pass == 0 { cold.append(elapsed) } else { warm.append(elapsed) }
                    if pass == 1 {
                        let applyStart = cpuMicros()
                        logits.withUnsafeMutableBufferPointer { mask.apply(to: $0) }
                        apply.append(cpuMicros() - applyStart)
                    }
                    precondition(mask.contains(token), "\(document.name): token \(token) refused")
                    try matcher.accept(token)
                }
            }
            coldAll += cold
            warmAll += warm
            print(
                "[GuidanceBench] \(model) \(document.name): compile \(ms(compileTime)), \(grammar.stateCount) states, "
                    + "\(tokens.count + 1) steps; mask cold \(summary(cold)); warm \(summary(warm)); apply \(summary(apply))"
            )
        }
        print("[GuidanceBench] \(model) all documents: mask cold \(summary(coldAll)); warm \(summary(warmAll))")
    }

    /// Uniformly random allowed tokens: a stress case that visits many fresh states.
    @Test(.onTestThreads) func randomWalkMaskTimes() throws {
        let index = try Fixtures.index("qwen2.5-coder-0.5b")
        var times: [Double] = []
        var steps = 0
        for seed in 0..<40 {
            var random = SplitMix64(seed: UInt64(seed) &+ 99)
            let schema = RandomSchemas.schema(using: &random)
            let matcher = TokenMatcher(grammar: try Grammar(schema: schema), index: index)
            var mask = TokenMask(vocabularySize: index.vocabularySize)
            matcher.reset()
            while !matcher.isComplete && steps < 100_000 {
                let start = cpuMicros()
                matcher.fillMask(&mask)
                times.append(cpuMicros() - start)
                let allowed = mask.allowedTokens
                let token =
                    matcher.canEnd && Bool.random(using: &random)
                    ? allowed.first(where: matcher.isEndOfGeneration)!
                    : times.count % 40 < 30
                        ? allowed.randomElement(using: &random)!
                        : allowed.min { a, b in
                            (matcher.minimumBytesToComplete(after: a) ?? .max)
                                < (matcher.minimumBytesToComplete(after: b) ?? .max)
                        }!
                try matcher.accept(token)
                steps += 1
            }
        }
        print(
            "[GuidanceBench] qwen random walks (40 random schemas, \(steps) steps, cold caches): mask \(summary(times))"
        )
    }

    /// What compiling costs: the realistic schemas above, then schemas an attacker would send
    /// (refused with `tooLarge`: the figure is what the refusal costs).
    @Test(.onTestThreads) func compileCosts() {
        var cases: [(String, Schema)] = Self.documents.map { ($0.name, $0.schema) }
        cases += [
            ("any object (json_object)", .anyObject(maximumDepth: Schema.anyObjectDepth)),
            ("anyOf doubling 24 levels", CompileBoundsTests.doubling(depth: 24)),
            ("pattern [ab]*a[ab]{24}", .string(pattern: "[ab]*a[ab]{24}")),
            ("pattern (a{100}){1000}", .string(pattern: "(a{100}){1000}")),
            ("array of 100,000 integers", .array(.integer(), minCount: 100_000, maxCount: 100_000)),
        ]
        for (name, schema) in cases {
            let start = cpuMicros()
            let outcome: String
            do {
                outcome = "\(try Grammar(schema: schema).stateCount) states"
            } catch let error as GuidanceError {
                outcome = "refused (\(error.kind))"
            } catch {
                outcome = "\(error)"
            }
            print("[GuidanceBench] compile \(name): \(ms(cpuMicros() - start)), \(outcome)")
        }
    }

    /// This thread's CPU time in µs: the machine is shared, and wall-clock times would mostly
    /// measure other processes.
    private func cpuMicros() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e6 + Double(time.tv_nsec) / 1e3
    }

    private func ms(_ micros: Double) -> String {
        String(format: "%.1f ms", micros / 1000)
    }

    private func summary(_ values: [Double]) -> String {
        guard !values.isEmpty else { return "-" }
        let sorted = values.sorted()
        let average = values.reduce(0, +) / Double(values.count)
        let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        return String(
            format: "avg %.1f µs, p50 %.1f, p99 %.1f, max %.1f", average, sorted[sorted.count / 2], p99, sorted.last!)
    }
}

private let benchmarksEnabled: Bool = {
    #if DEBUG
        ProcessInfo.processInfo.environment["SOTTO_BENCH"] != nil
    #else
        true
    #endif
}()
