import FoundationModels
import ServerKit

/// How large a client's schema grows once the engine compiles it, estimated before any model
/// work, so that a small request cannot make the server build an enormous automaton.
///
/// The engine inlines every reference (a recursive one ``inliningDepth`` times over) and unrolls
/// arrays: the element is written once per element the count allows, once more when there is
/// no upper bound. A JSON Schema of a kilobyte can so ask for billions of states: a chain of
/// definitions each referring twice to the next doubles at every link, and nested `maxItems`
/// multiply. The estimate follows the same expansion and counts, for each node, roughly the
/// automaton states it needs (the bytes of its keys, choices and pattern, a constant per
/// value), and stops as soon as the total passes ``limit``: estimating costs at most about
/// `limit` steps, whatever the schema.
package struct SchemaExpansion {
    /// The most estimated automaton states a schema may expand to. A tool's arguments or a
    /// response of a few hundred fields stay far below it; the grammar compiler has its own,
    /// larger bounds (`Grammar.defaultStateLimit`) for what this estimate misses.
    package static let limit = 200_000
    /// How many times the engine unrolls a recursive reference (`guidanceSchema(maximumDepth:)`).
    package static let inliningDepth = 3

    /// The schema grew past the limit.
    package struct TooLarge: Error {}

    private let definitions: [String: SchemaNode]
    private var expanding: [String: Int] = [:]

    private init(_ schema: GenerationSchema) {
        var definitions: [String: SchemaNode] = [:]
        for definition in schema.definitions where definitions[definition.name] == nil {
            definitions[definition.name] = definition.node
        }
        self.definitions = definitions
    }

    /// The estimated size of `schema`, or nil when it passes `limit`.
    package static func estimate(_ schema: GenerationSchema, limit: Int = limit) -> Int? {
        var walk = SchemaExpansion(schema)
        return try? walk.weight(of: schema.root, budget: limit)
    }

    /// The weight of `node` expanded, throwing as soon as it passes `budget`.
    private mutating func weight(of node: SchemaNode, budget: Int) throws(TooLarge) -> Int {
        guard budget > 0 else { throw TooLarge() }
        var total = 0
        func add(_ amount: Int) throws(TooLarge) {
            total += amount
            if total > budget { throw TooLarge() }
        }
        switch node {
        case .object(let object):
            try add(2)
            for property in object.properties {
                try add(property.name.utf8.count + 6)
                try add(try weight(of: property.node, budget: budget - total))
            }
        case .array(let element, let minimum, let maximum):
            // Counts past the budget are past it anyway; clamped, they cannot overflow below.
            let clamp = { (count: Int) in min(max(count, 0), budget + 1) }
            let least = max(clamp(minimum ?? 0), 1)
            // The compiler writes the element once per allowed element, once more when unbounded;
            // at least once here, as the engine inlines the element's references even when none.
            let copies = max(1, maximum.map { max(clamp($0), least) } ?? least + 1)
            try add(2)
            guard copies <= budget - total else { throw TooLarge() }
            let each = try weight(of: element, budget: (budget - total) / copies) + 2
            try add(each * copies)
        case .string(let constraints):
            try add(8)
            for choice in constraints.choices ?? [] { try add(choice.utf8.count + 2) }
            if let pattern = constraints.pattern { try add(Self.patternWeight(pattern)) }
        case .integer:
            try add(64)
        case .number:
            try add(256)
        case .boolean:
            try add(10)
        case .null, .anyValue:
            try add(5)
        case .enumeration(_, _, let cases):
            try add(2)
            for choice in cases { try add(choice.utf8.count + 2) }
        case .anyOf(_, _, let choices):
            try add(2)
            for choice in choices { try add(try weight(of: choice, budget: budget - total)) }
        case .reference(let name):
            try add(1)
            guard let definition = definitions[name] else { break }  // the engine refuses it later
            let depth = expanding[name, default: 0]
            guard depth < Self.inliningDepth else { break }
            expanding[name] = depth + 1
            defer { expanding[name] = depth }
            try add(try weight(of: definition, budget: budget - total))
        case .anyObject:
            try add(4096)
        }
        return total
    }

    /// A pattern's bytes, plus the upper bound of each counted repetition (`{n}`, `{n,m}`) as
    /// the states it unrolls to. Nested repetitions multiply in the compiler; the grammar's own
    /// bounds catch what this sum misses.
    package static func patternWeight(_ pattern: String) -> Int {
        var weight = pattern.utf8.count
        var number = 0
        var inBraces = false
        for byte in pattern.utf8 {
            switch byte {
            case UInt8(ascii: "{"):
                inBraces = true
                number = 0
            case UInt8(ascii: "0")...UInt8(ascii: "9") where inBraces:
                number = min(number * 10 + Int(byte - UInt8(ascii: "0")), 1 << 30)
            case UInt8(ascii: ","):
                number = 0
            case UInt8(ascii: "}") where inBraces:
                weight = min(weight + number, 1 << 40)
                inBraces = false
            default:
                break
            }
        }
        return weight
    }
}

/// The bounds on a client's JSON Schema (`response_format`, a tool's `parameters`), for the
/// command line's help.
public enum JSONSchemaLimits {
    /// Levels a schema may nest.
    public static let nestingDepth = JSONSchemaReader.maximumDepth
    /// Estimated automaton states a schema may expand to.
    public static let expandedStates = SchemaExpansion.limit
}
