import Foundation
import FoundationModels
import LocalEngine
import TestSupport
import Testing

/// Random schemas × seeds on a real small model: every response decodes and satisfies every
/// guide, even with a token budget barely above the schema's shortest value (the model is not
/// told the schema, so the grammar alone keeps it valid).
extension EngineTests {
    @Suite
    struct Properties {
        static let schemaCount = 150

        @Test func randomSchemasAlwaysGiveValidValues() async throws {
            let model = try EngineModels.model(EngineModels.smollm)
            let backend = try await model.runtime()
            var random = SplitMix64(seed: 20_250_601)
            var failures: [String] = []
            var runs = 0
            for index in 0..<Self.schemaCount {
                let root = RandomSchema.node(depth: 0, random: &random)
                let schema = GenerationSchema(root: root)
                let shortest = try backend.minimumResponseBytes(for: schema)
                let budget = shortest + Int(random.next() % 24) + 4
                for sampling in [GenerationOptions.SamplingMode.greedy, .random(top: 50, seed: random.next())] {
                    runs += 1
                    let session = LanguageModelSession(model: model, instructions: "You fill in data.")
                    do {
                        let response = try await session.respond(
                            to: "Fill in a value.", schema: schema, includeSchemaInPrompt: false,
                            options: GenerationOptions(
                                sampling: sampling, temperature: 1.0, maximumResponseTokens: budget))
                        #expect(response.usage.output.totalTokenCount <= budget)
                        if let problem = SchemaCheck.problem(response.rawContent, root, path: "$") {
                            failures.append(
                                "#\(index) \(sampling): \(problem) in \(response.rawContent.jsonString) for \(root)")
                        }
                    } catch {
                        failures.append("#\(index) \(sampling) budget \(budget): \(error) for \(root)")
                    }
                }
            }
            #expect(runs == Self.schemaCount * 2)
            #expect(
                failures.isEmpty,
                Comment(
                    rawValue: "\(failures.count) of \(runs) failed:\n" + failures.prefix(10).joined(separator: "\n")))
        }
    }
}

/// Small random schema trees with every kind of guide.
enum RandomSchema {
    static let names = ["name", "city", "count", "score", "tags", "kind", "note", "ok", "items", "code"]
    static let choiceSets = [
        ["red", "green", "blue"], ["yes", "no"], ["alpha", "beta", "gamma", "delta"], ["🙂 happy", "sad"],
    ]
    static let patterns = [
        "[a-z]{2,6}", "[A-Z][a-z]{1,5}", "[0-9]{3}\\-[0-9]{4}", "(yes|no|maybe)", "#[a-z]+", "[a-f0-9]{4}",
    ]

    static func node(depth: Int, random: inout SplitMix64) -> SchemaNode {
        let kinds = depth >= 2 ? 8 : 11
        switch random.next() % UInt64(kinds) {
        case 0: return .string(StringConstraints())
        case 1: return .string(StringConstraints(choices: choiceSets[random.below(choiceSets.count)]))
        case 2: return .string(StringConstraints(pattern: patterns[random.below(patterns.count)]))
        case 3:
            let bounds = [(Int?.none, Int?.none), (0, 10), (-5, 5), (1, 120), (nil, 0), (100, nil)][random.below(6)]
            return .integer(minimum: bounds.0, maximum: bounds.1)
        case 4:
            let bounds = [(Double?.none, Double?.none), (0, 1), (-10, 10), (0, 5), (nil, 0.5)][random.below(5)]
            return .number(minimum: bounds.0, maximum: bounds.1)
        case 5: return .boolean
        case 6: return .enumeration(name: "Mood", description: nil, cases: ["calm", "busy", "away"])
        case 7:
            return .anyOf(
                name: nil, description: nil,
                choices: [.integer(minimum: 0, maximum: 9), .string(StringConstraints(choices: ["none"]))])
        case 8, 9:
            var properties: [SchemaProperty] = []
            var available = names
            for _ in 0..<(1 + random.below(3)) {
                let name = available.remove(at: random.below(available.count))
                properties.append(
                    SchemaProperty(
                        name: name, description: nil, node: node(depth: depth + 1, random: &random),
                        isOptional: random.below(4) == 0))
            }
            return .object(ObjectNode(name: "Thing\(depth)", description: nil, properties: properties))
        default:
            let counts = [(Int?.none, Int?.none), (2, 2), (1, 3), (0, 2), (3, nil)][random.below(5)]
            return .array(
                element: node(depth: depth + 1, random: &random), minimumCount: counts.0, maximumCount: counts.1)
        }
    }
}

/// Checks generated content against a schema tree, guide by guide.
enum SchemaCheck {
    static func problem(_ content: GeneratedContent, _ node: SchemaNode, path: String) -> String? {
        guard content.isComplete else { return "\(path) is incomplete" }
        switch (node, content.kind) {
        case (.object(let object), .structure(let properties, let keys)):
            let expected = object.properties.map(\.name)
            guard keys.allSatisfy(expected.contains) else { return "\(path) has unknown keys \(keys)" }
            // Properties come in declaration order.
            guard keys == expected.filter(keys.contains) else { return "\(path) keys out of order: \(keys)" }
            for property in object.properties {
                guard let value = properties[property.name] else {
                    if property.isOptional { continue }
                    return "\(path).\(property.name) is missing"
                }
                if property.isOptional, value.kind == .null { continue }
                if let problem = problem(value, property.node, path: path + "." + property.name) { return problem }
            }
            return nil
        case (.array(let element, let minimum, let maximum), .array(let elements)):
            if let minimum, elements.count < minimum { return "\(path) has \(elements.count) < \(minimum) elements" }
            if let maximum, elements.count > maximum { return "\(path) has \(elements.count) > \(maximum) elements" }
            for (index, value) in elements.enumerated() {
                if let problem = problem(value, element, path: "\(path)[\(index)]") { return problem }
            }
            return nil
        case (.string(let constraints), .string(let text)):
            if let choices = constraints.choices, !choices.contains(text) {
                return "\(path) \(text.debugDescription) is not a choice"
            }
            if let pattern = constraints.pattern {
                guard let regex = try? Regex(pattern), text.wholeMatch(of: regex) != nil else {
                    return "\(path) \(text.debugDescription) does not match \(pattern)"
                }
            }
            return nil
        case (.enumeration(_, _, let cases), .string(let text)):
            return cases.contains(text) ? nil : "\(path) \(text.debugDescription) is not a case"
        case (.integer(let minimum, let maximum), .number(let value)):
            guard value == value.rounded() else { return "\(path) \(value) is not whole" }
            if let minimum, value < Double(minimum) { return "\(path) \(value) < \(minimum)" }
            if let maximum, value > Double(maximum) { return "\(path) \(value) > \(maximum)" }
            return nil
        case (.number(let minimum, let maximum), .number(let value)):
            if let minimum, value < minimum { return "\(path) \(value) < \(minimum)" }
            if let maximum, value > maximum { return "\(path) \(value) > \(maximum)" }
            return nil
        case (.boolean, .bool), (.null, .null):
            return nil
        case (.anyOf(_, _, let choices), _):
            return choices.contains { problem(content, $0, path: path) == nil } ? nil : "\(path) matches no choice"
        default:
            return "\(path) has the wrong kind: \(content.kind) for \(node)"
        }
    }
}
