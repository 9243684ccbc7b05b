import Foundation
import TestSupport
import Testing
import Tokenizers

@testable import Guidance

/// Random schemas, random constrained walks through a vocabulary, and an independent check that
/// an output satisfies its schema.
enum RandomSchemas {
    static let patterns = [
        "[a-z]{1,8}", "\\d{3}-\\d{4}", "(red|green|blue)", "[A-Z][a-z]*( [A-Z][a-z]*)?", "\\w+@\\w+\\.com", ".{0,5}",
        "[^\"\\\\]{0,4}x", "é+|ü", "#[0-9a-f]{6}", "(ab)+c?",
    ]
    static let names = ["name", "age", "replies", "a \"quoted\" key", "ünï", "x", "tags", "score", "id", "nested"]
    static let words = ["calm", "cross", "happy", "sad", "日本", "a\"b", "", "yes", "no", "Hello, world"]

    static func schema(depth: Int = 0, using random: inout SplitMix64) -> Schema {
        let kind = Int.random(in: 0..<(depth >= 2 ? 8 : 11), using: &random)
        switch kind {
        case 0:
            return .string(maxLength: Bool.random(using: &random) ? Int.random(in: 0...12, using: &random) : nil)
        case 1:
            return .string(
                pattern: patterns.randomElement(using: &random)!,
                maxLength: Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 8...12, using: &random) : nil)
        case 2:
            return .string(choices: Array(words.shuffled(using: &random).prefix(Int.random(in: 1...4, using: &random))))
        case 3:
            let low = Int.random(in: -1000...1000, using: &random)
            let high = low + Int.random(in: 0...2000, using: &random)
            return .integer(
                min: Bool.random(using: &random) ? low : nil,
                max: Int.random(in: 0..<4, using: &random) > 0 ? high : nil)
        case 4:
            let low = Double(Int.random(in: -100_000...100_000, using: &random)) / 100
            let high = low + Double(Int.random(in: 0...50_000, using: &random)) / 1000
            return .number(
                min: Int.random(in: 0..<4, using: &random) > 0 ? low : nil,
                max: Int.random(in: 0..<4, using: &random) > 0 ? high : nil)
        case 5: return .boolean
        case 6: return .constant(words.randomElement(using: &random)!)
        case 7: return Bool.random(using: &random) ? .null : .anyOf([.integer(min: 0, max: 9), .null, .boolean])
        case 8:
            let count = Int.random(in: 0...4, using: &random)
            let chosen = names.shuffled(using: &random).prefix(count)
            return .object(
                chosen.map { name in
                    .init(
                        name, schema(depth: depth + 1, using: &random),
                        isOptional: Int.random(in: 0..<3, using: &random) == 0)
                })
        case 9:
            let minCount = Int.random(in: 0...3, using: &random)
            let maxCount: Int? = Bool.random(using: &random) ? minCount + Int.random(in: 0...3, using: &random) : nil
            return .array(schema(depth: depth + 1, using: &random), minCount: minCount, maxCount: maxCount)
        default:
            return .anyOf((0..<Int.random(in: 2...3, using: &random)).map { _ in schema(depth: 2, using: &random) })
        }
    }

    /// Generates one output: random allowed tokens for `budget` steps, then the tokens that
    /// bring completion nearest. `check` runs on every mask (e.g. a brute-force comparison).
    static func walk(
        _ matcher: TokenMatcher, budget: Int, using random: inout SplitMix64,
        check: (TokenMatcher, TokenMask) throws -> Void = { _, _ in }
    ) throws -> [UInt8] {
        matcher.reset()
        let vocabulary = matcher.index.vocabulary
        var mask = TokenMask(vocabularySize: matcher.index.vocabularySize)
        var output: [UInt8] = []
        var step = 0
        while !matcher.isComplete {
            matcher.fillMask(&mask)
            try check(matcher, mask)
            let allowed = mask.allowedTokens
            guard !allowed.isEmpty else {
                Issue.record("empty mask after \(String(decoding: output, as: UTF8.self).debugDescription)")
                break
            }
            var token: Int
            if matcher.canEnd && (step >= budget || Int.random(in: 0..<4, using: &random) == 0) {
                token = allowed.first(where: matcher.isEndOfGeneration)!
            } else if step < budget {
                token = allowed.randomElement(using: &random)!
                if matcher.isEndOfGeneration(token) {
                    token = allowed.first { !matcher.isEndOfGeneration($0) } ?? token
                }
            } else {
                // Short tokens always include the byte on a shortest path; add a sample of others.
                let candidates =
                    allowed.filter { vocabulary.tokenBytes[$0].count <= 2 }
                    + (0..<64).map { _ in allowed.randomElement(using: &random)! }
                token = candidates.min { a, b in
                    (matcher.minimumBytesToComplete(after: a) ?? .max, vocabulary.tokenBytes[a].count)
                        < (matcher.minimumBytesToComplete(after: b) ?? .max, vocabulary.tokenBytes[b].count)
                }!
            }
            #expect(mask.contains(token))
            try matcher.accept(token)
            if matcher.isEndOfGeneration(token) { break }
            output += vocabulary.tokenBytes[token]
            step += 1
            if step > budget + 2000 {
                Issue.record("walk did not finish: \(String(decoding: output, as: UTF8.self).debugDescription)")
                break
            }
        }
        return output
    }

    /// What is wrong with `value` for `schema` (empty when nothing is).
    static func violations(_ value: Any, _ schema: Schema, path: String = "$") -> [String] {
        switch schema {
        case .object(let properties):
            guard let object = value as? [String: Any] else { return ["\(path): not an object"] }
            var problems: [String] = []
            let known = Set(properties.map(\.name))
            for key in object.keys where !known.contains(key) { problems.append("\(path): unknown key \(key)") }
            for property in properties {
                if let member = object[property.name] {
                    problems += violations(member, property.schema, path: path + "." + property.name)
                } else if !property.isOptional {
                    problems.append("\(path): missing \(property.name)")
                }
            }
            return problems
        case .array(let element, let minCount, let maxCount):
            guard let array = value as? [Any] else { return ["\(path): not an array"] }
            var problems: [String] = []
            if array.count < (minCount ?? 0) || array.count > (maxCount ?? .max) {
                problems.append("\(path): \(array.count) elements")
            }
            for (index, item) in array.enumerated() { problems += violations(item, element, path: "\(path)[\(index)]") }
            return problems
        case .string(let pattern, let choices, let maxLength):
            guard let string = value as? String else { return ["\(path): not a string"] }
            if let choices, !choices.contains(string) { return ["\(path): \(string) not a choice"] }
            if let maxLength, string.unicodeScalars.count > maxLength { return ["\(path): \(string) too long"] }
            if let pattern {
                let regex = try! NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z")
                if regex.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) == nil {
                    return ["\(path): \(string.debugDescription) does not match \(pattern)"]
                }
            }
            return []
        case .integer(let min, let max):
            guard let number = value as? NSNumber, !isBoolean(value) else { return ["\(path): not a number"] }
            let double = number.doubleValue
            guard double.rounded() == double else { return ["\(path): \(number) not integral"] }
            if let min, double < Double(min) { return ["\(path): \(number) < \(min)"] }
            if let max, double > Double(max) { return ["\(path): \(number) > \(max)"] }
            return []
        case .number(let min, let max):
            guard let number = value as? NSNumber, !isBoolean(value) else { return ["\(path): not a number"] }
            if let min, number.doubleValue < min { return ["\(path): \(number) < \(min)"] }
            if let max, number.doubleValue > max { return ["\(path): \(number) > \(max)"] }
            return []
        case .boolean:
            return isBoolean(value) ? [] : ["\(path): not a boolean"]
        case .constant(let constant):
            return (value as? String) == constant ? [] : ["\(path): not \(constant)"]
        case .null:
            return value is NSNull ? [] : ["\(path): not null"]
        case .anyOf(let options):
            return options.contains { violations(value, $0, path: path).isEmpty } ? [] : ["\(path): matches no option"]
        case .anyObject(let maximumDepth):
            guard value is [String: Any] else { return ["\(path): not an object"] }
            let depth = nesting(value)
            return depth <= maximumDepth ? [] : ["\(path): nested \(depth) deep, over \(maximumDepth)"]
        }
    }

    /// How many containers deep a JSONSerialization value nests (0 for a scalar).
    static func nesting(_ value: Any) -> Int {
        if let object = value as? [String: Any] { return 1 + (object.values.map(nesting).max() ?? 0) }
        if let array = value as? [Any] { return 1 + (array.map(nesting).max() ?? 0) }
        return 0
    }

    /// Whether a JSONSerialization value is `true` or `false` (NSNumber bridges 0 and 1 to Bool).
    static func isBoolean(_ value: Any) -> Bool {
        if let number = value as? NSNumber { return String(cString: number.objCType) == "c" }
        return value is Bool
    }

    /// Parses `output` with JSONSerialization and checks it against `schema`; records issues.
    static func verify(_ output: [UInt8], _ schema: Schema, grammar: Grammar, context: String) {
        let text = String(decoding: output, as: UTF8.self)
        #expect(grammar.accepts(bytes: output), "\(context): grammar refuses its own output \(text)")
        do {
            let value = try JSONSerialization.jsonObject(with: Data(output), options: [.fragmentsAllowed])
            let problems = violations(value, schema)
            #expect(problems.isEmpty, "\(context): \(text) → \(problems)")
        } catch {
            Issue.record("\(context): not JSON: \(text) (\(error))")
        }
    }
}
