import Synchronization

/// A schema compiled to a byte-level automaton: the JSON texts it accepts are exactly those that
/// satisfy the schema, in the fixed layout described on `Schema`.
///
/// Compile once per schema and share: a grammar is immutable apart from its cache of token masks
/// (one per `VocabularyIndex`, filled as generations visit states, guarded by a lock).
///
/// ```swift
/// let grammar = try Grammar(schema: .object([.init("replies", .array(.string(), minCount: 3, maxCount: 3))]))
/// let matcher = TokenMatcher(grammar: grammar, index: index)
/// ```
public final class Grammar: Sendable {
    /// The largest automaton `init(schema:)` builds unless told otherwise.
    public static let defaultStateLimit = 400_000
    /// The most transition-table cells (states × byte classes, 4 bytes each) `init(schema:)`
    /// builds: 16 Mi cells, 64 MB.
    public static let defaultTableLimit = 16 << 20
    /// The most work the subset construction does (NFA states and edges it visits) before
    /// `init(schema:)` gives up: a schema whose automaton stays under the state limit can still
    /// take long to build (a pattern such as `(a|b)*a(a|b){20}` has a small NFA and a huge
    /// DFA), and the limit makes a refusal cost a fraction of a second, never more.
    public static let defaultWorkLimit = 8_000_000
    /// The most states one `pattern` of a string schema may take (its counted repetitions
    /// unrolled), before the rest of the schema.
    public static let patternStateLimit = 20_000

    /// The schema this grammar was compiled from.
    public let schema: Schema
    let dfa: ByteDFA
    /// Run limits for each slice family of `VocabularyIndex.families`.
    let runLimits: [RunLimits]
    private let tables = Mutex<[ObjectIdentifier: MaskTable]>([:])

    /// Compiles `schema`.
    ///
    /// - Throws: `GuidanceError` with kind `invalidSchema`, `invalidPattern`, `unsupportedPattern`,
    ///   `emptyLanguage` or `tooLarge` (past `stateLimit` states, ``defaultTableLimit`` cells or
    ///   ``defaultWorkLimit`` steps of work), and the schema path of the problem.
    public init(schema: Schema, stateLimit: Int = Grammar.defaultStateLimit) throws {
        self.schema = schema
        var compiler = SchemaCompiler(stateLimit: stateLimit * 2)
        let (start, final) = try compiler.compile(schema)
        dfa = try ByteDFA(
            nfa: compiler.nfa, start: start, final: final,
            limits: .init(states: stateLimit, tableCells: Self.defaultTableLimit, work: Self.defaultWorkLimit))
        let dfa = dfa
        runLimits = VocabularyIndex.families.map { RunLimits(dfa: dfa, characters: $0) }
    }

    /// A grammar for `schema` from a process-wide cache of recently used schemas, compiled on
    /// first use. Masks computed by earlier generations stay with the grammar, so a schema used
    /// again starts warm.
    public static func shared(for schema: Schema) throws -> Grammar {
        if let grammar = sharedGrammars.withLock({ $0.lookup(schema) }) { return grammar }
        let grammar = try Grammar(schema: schema)
        sharedGrammars.withLock { $0.insert(grammar, for: schema) }
        return grammar
    }

    private static let sharedGrammars = Mutex(RecentGrammars(capacity: 32))

    /// The number of automaton states (the dead state included).
    public var stateCount: Int { dfa.stateCount }

    /// Whether `text` is a complete output the grammar accepts.
    public func accepts(_ text: String) -> Bool {
        accepts(bytes: Array(text.utf8))
    }

    /// Whether `bytes` are a complete output the grammar accepts.
    public func accepts(bytes: some Sequence<UInt8>) -> Bool {
        dfa.accepting[Int(dfa.run(bytes))]
    }

    /// Whether `bytes` can be continued into an accepted output.
    public func acceptsPrefix(bytes: some Sequence<UInt8>) -> Bool {
        dfa.run(bytes) != ByteDFA.dead
    }

    /// The mask cache for `index`, created on first use.
    func maskTable(for index: VocabularyIndex) -> MaskTable {
        tables.withLock { tables in
            if let table = tables[ObjectIdentifier(index)] { return table }
            let table = MaskTable(grammar: self, index: index)
            tables[ObjectIdentifier(index)] = table
            return table
        }
    }
}

/// A few recently used grammars by schema, the least recently used dropped first.
private struct RecentGrammars {
    let capacity: Int
    private var grammars: [Schema: Grammar] = [:]
    private var order: [Schema] = []

    init(capacity: Int) {
        self.capacity = capacity
    }

    mutating func lookup(_ schema: Schema) -> Grammar? {
        guard let grammar = grammars[schema] else { return nil }
        if let position = order.firstIndex(of: schema) { order.remove(at: position) }
        order.append(schema)
        return grammar
    }

    mutating func insert(_ grammar: Grammar, for schema: Schema) {
        if grammars.updateValue(grammar, forKey: schema) == nil { order.append(schema) }
        while order.count > capacity { grammars[order.removeFirst()] = nil }
    }
}
