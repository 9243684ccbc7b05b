import TestSupport
import Testing

@testable import Guidance

/// Schemas that would need enormous automata, or enormous work to build them, are refused with
/// `tooLarge` (what a server answers 400), not built.
struct CompileBoundsTests {
    /// `anyOf` of two objects around the level below, `depth` times: a tree of a few nodes per
    /// level in memory (Swift shares the subtrees), 2^depth copies once compiled.
    static func doubling(depth: Int) -> Schema {
        var schema = Schema.string()
        for _ in 0..<depth {
            schema = .anyOf([.object([.init("a", schema)]), .object([.init("b", schema)])])
        }
        return schema
    }

    @Test(.onTestThreads) func aSchemaThatDoublesAtEachLevelIsRefused() throws {
        #expect(throws: GuidanceError.self) { _ = try Grammar(schema: Self.doubling(depth: 24)) }
        do {
            _ = try Grammar(schema: Self.doubling(depth: 24))
        } catch let error as GuidanceError {
            #expect(error.kind == .tooLarge, "\(error)")
        }
        // A few levels of it are an ordinary schema.
        let small = try Grammar(schema: Self.doubling(depth: 3))
        #expect(small.accepts(#"{"a": {"b": {"a": "x"}}}"#))
    }

    /// A small NFA whose DFA has 2^24 states ("the 25th byte from the end is an a"): refused
    /// for the work or the states, before it is built.
    @Test(.onTestThreads) func aPatternWhoseAutomatonExplodesIsRefusedByItsWork() {
        do {
            _ = try Grammar(schema: .object([.init("p", .string(pattern: "[ab]*a[ab]{24}"))]))
            Issue.record("compiled")
        } catch let error as GuidanceError {
            #expect(error.kind == .tooLarge, "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test(.onTestThreads) func aPatternOfNestedCountsIsRefusedBeforeTheRestOfTheSchema() {
        do {
            _ = try Grammar(schema: .object([.init("p", .string(pattern: "(a{100}){1000}"))]))
            Issue.record("compiled")
        } catch let error as GuidanceError {
            #expect(error.kind == .tooLarge, "\(error)")
            #expect(error.message.contains("pattern"), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test(.onTestThreads) func theWorkLimitLeavesOrdinarySchemasAlone() throws {
        let ticket = Schema.object([
            .init("id", .string(pattern: "[A-Z]{3}-\\d{4}")),
            .init("priority", .string(choices: ["low", "medium", "high", "urgent"])),
            .init("estimate", .number(min: 0, max: 100)), .init("done", .boolean),
            .init("tags", .array(.string(pattern: "[a-z][a-z0-9-]{0,15}"), maxCount: 5)),
            .init("summary", .string(maxLength: 120)),
            .init(
                "people",
                .array(
                    .object([.init("name", .string(maxLength: 30)), .init("age", .integer(min: 0, max: 120))]),
                    maxCount: 10)),
            .init("any", .anyObject(maximumDepth: Schema.anyObjectDepth)),
        ])
        let grammar = try Grammar(schema: ticket)
        #expect(grammar.stateCount > 1000)
    }
}
