import Synchronization
import Tokenizers

/// The token masks of one grammar over one vocabulary, computed on first visit of each automaton
/// state and kept (a state's mask never depends on how it was reached).
final class MaskTable: Sendable {
    /// One state's mask: each family's first slices wholesale (as one union), plus walked tokens.
    struct Entry: Sendable {
        var admitted: TokenMask
        /// Walked tokens as ids, or as a bitset when that is smaller.
        var tokens: [Int32]
        var bits: TokenMask?
    }

    private struct Cache {
        var entries: [Entry?]
        var computed = 0
    }

    let dfa: ByteDFA
    let limits: [RunLimits]
    let index: VocabularyIndex
    private let cache: Mutex<Cache>

    init(grammar: Grammar, index: VocabularyIndex) {
        dfa = grammar.dfa
        limits = grammar.runLimits
        self.index = index
        cache = Mutex(Cache(entries: [Entry?](repeating: nil, count: grammar.dfa.stateCount)))
    }

    /// How many states have had their mask computed so far.
    var computedCount: Int { cache.withLock { $0.computed } }

    /// Writes the allowed tokens at `state` into `mask` (end-of-generation tokens included when
    /// the state accepts). The mask may be longer than the vocabulary (a model's output matrix
    /// can have padding rows): ids past it are cleared.
    func fill(_ mask: inout TokenMask, state: Int32) {
        precondition(
            mask.vocabularySize >= index.vocabularySize,
            "mask of \(mask.vocabularySize) tokens for a vocabulary of \(index.vocabularySize)")
        let entry: Entry
        if let cached = cache.withLock({ $0.entries[Int(state)] }) {
            entry = cached
        } else {
            entry = compute(state)
            cache.withLock { cache in
                if cache.entries[Int(state)] == nil { cache.computed += 1 }
                cache.entries[Int(state)] = entry
            }
        }
        let base = entry.admitted
        mask.words.withUnsafeMutableBufferPointer { words in
            base.words.withUnsafeBufferPointer { words.baseAddress!.update(from: $0.baseAddress!, count: $0.count) }
            if words.count > base.words.count { words[base.words.count...].update(repeating: 0) }
            if let bits = entry.bits {
                bits.words.withUnsafeBufferPointer { bits in
                    for index in 0..<bits.count { words[index] |= bits[index] }
                }
            }
            for token in entry.tokens { words[Int(token) >> 6] |= 1 << UInt64(token & 63) }
            if dfa.accepting[Int(state)] {
                for token in index.endOfGenerationTokens { words[Int(token) >> 6] |= 1 << UInt64(token & 63) }
            }
        }
        for (original, duplicate) in index.trie.duplicates where mask.contains(Int(original)) {
            mask.insert(Int(duplicate))
        }
    }

    /// The mask of `state` from scratch: slices the run limits settle are taken or skipped whole;
    /// the others, and the rest of the vocabulary, are walked through the automaton.
    func compute(_ state: Int32) -> Entry {
        let bounds = VocabularyIndex.sliceBounds
        var tokens: [Int32] = []
        let stack = UnsafeMutablePointer<Int32>.allocate(capacity: index.trie.maxDepth + 1)
        defer { stack.deallocate() }
        index.trie.walk(index.restRange, from: state, dfa: dfa, stack: stack, into: &tokens)
        var admittedCounts: [Int] = []
        for (family, limits) in limits.enumerated() {
            let safe = limits.safe[Int(state)]
            let possible = limits.possible[Int(state)]
            var admitted = 0
            while admitted < bounds.count && bounds[admitted].max <= safe { admitted += 1 }
            admittedCounts.append(admitted)
            for slice in admitted..<bounds.count where bounds[slice].min <= possible {
                index.trie.walk(index.sliceRanges[family][slice], from: state, dfa: dfa, stack: stack, into: &tokens)
            }
        }
        let admitted = index.union(admitted: admittedCounts)
        let wordCount = (index.vocabularySize + 63) / 64
        if tokens.count > wordCount * 2 {
            var bits = TokenMask(vocabularySize: index.vocabularySize)
            for token in tokens { bits.insert(Int(token)) }
            return Entry(admitted: admitted, tokens: [], bits: bits)
        }
        return Entry(admitted: admitted, tokens: tokens, bits: nil)
    }
}
