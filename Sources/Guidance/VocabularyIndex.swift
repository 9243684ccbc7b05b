/// A vocabulary prepared for masking: its tokens in byte tries, split into slices. Build it once
/// per tokenizer and share it between grammars and generations.
///
/// Tokens made only of plain string characters (no quote, backslash or control character, whole
/// UTF-8) are grouped by length in characters; each group ("slice") has its own trie and its own
/// precomputed mask. Inside a JSON string a whole slice is usually allowed at once, and in
/// structural positions usually refused at once, so only the small rest of the vocabulary is
/// walked. Everything else goes into one more trie, walked at every new state.
public final class VocabularyIndex: Sendable {
    /// Inclusive character-count bounds of the slices, shortest first.
    static let sliceBounds: [(min: Int32, max: Int32)] = [
        (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 8), (9, 10), (11, 12), (13, 16), (17, 24), (25, 32),
        (33, PlainRunLimits.unbounded),
    ]

    public let vocabulary: Vocabulary
    /// The number of token ids (the size of masks and logit rows).
    public var vocabularySize: Int { vocabulary.count }

    let trie: TokenTrie
    /// Node ranges of each slice's trie, then of the rest.
    let sliceRanges: [Range<Int>]
    let restRange: Range<Int>
    /// `prefixUnions[k]`: the mask of slices `0..<k` (k = 0…slice count).
    let prefixUnions: [TokenMask]
    /// Each slice's own mask.
    let sliceMasks: [TokenMask]
    let endOfGenerationTokens: [Int32]

    public init(_ vocabulary: Vocabulary) {
        self.vocabulary = vocabulary
        let bounds = Self.sliceBounds
        var slices = [[Int32]](repeating: [], count: bounds.count)
        var rest: [Int32] = []
        for id in 0..<vocabulary.count where vocabulary.isText(id) {
            if let length = Self.plainLength(vocabulary.tokenBytes[id]),
                let slice = bounds.firstIndex(where: { length >= $0.min && length <= $0.max })
            {
                slices[slice].append(Int32(id))
            } else {
                rest.append(Int32(id))
            }
        }
        var trie = TokenTrie()
        sliceRanges = slices.map { trie.append(tokens: $0, bytes: vocabulary.tokenBytes) }
        restRange = trie.append(tokens: rest, bytes: vocabulary.tokenBytes)
        self.trie = trie

        var masks: [TokenMask] = []
        var unions = [TokenMask(vocabularySize: vocabulary.count)]
        for tokens in slices {
            var mask = TokenMask(vocabularySize: vocabulary.count)
            for token in tokens { mask.insert(Int(token)) }
            masks.append(mask)
            var union = unions[unions.count - 1]
            for index in union.words.indices { union.words[index] |= mask.words[index] }
            unions.append(union)
        }
        sliceMasks = masks
        prefixUnions = unions
        endOfGenerationTokens = vocabulary.endOfGenerationTokenIDs.sorted().map { Int32($0) }
    }

    /// The number of Unicode scalars in `bytes` if it is whole UTF-8 made only of plain string
    /// characters; nil otherwise.
    static func plainLength(_ bytes: [UInt8]) -> Int32? {
        var count: Int32 = 0
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                guard scalar.value >= 0x20, scalar.value != 0x22, scalar.value != 0x5C else { return nil }
                count += 1
            case .emptyInput:
                return count > 0 ? count : nil
            case .error:
                return nil
            }
        }
    }

    /// Trie nodes in all slices (for reports).
    package var nodeCount: Int { trie.nodes.count }
    package var restTokenCount: Int { restRange.isEmpty ? 0 : Set(trie.nodes[restRange].map(\.token)).count - 1 }
}
