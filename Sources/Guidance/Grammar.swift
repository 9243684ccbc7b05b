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

    public let schema: Schema
    let dfa: ByteDFA
    let runLimits: PlainRunLimits
    private let tables = Mutex<[ObjectIdentifier: MaskTable]>([:])

    /// Compiles `schema`.
    ///
    /// - Throws: `GuidanceError` with kind `invalidSchema`, `invalidPattern`, `unsupportedPattern`,
    ///   `emptyLanguage` or `tooLarge`, and the schema path of the problem.
    public init(schema: Schema, stateLimit: Int = Grammar.defaultStateLimit) throws {
        self.schema = schema
        var compiler = SchemaCompiler(stateLimit: stateLimit * 2)
        let (start, final) = try compiler.compile(schema)
        dfa = try ByteDFA(nfa: compiler.nfa, start: start, final: final, stateLimit: stateLimit)
        runLimits = PlainRunLimits(dfa: dfa)
    }

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
