import Foundation
import Synchronization
import Tokenizers

/// A vocabulary prepared for masking: its tokens in byte tries, split into slices. Build it once
/// per tokenizer and share it between grammars and generations.
///
/// Tokens made only of plain string characters (no quote, backslash or control character, whole
/// UTF-8) are sorted into families by the characters they use (lowercase letters, letters,
/// letters after a space, any plain character) and within a family into slices by length in
/// characters. Each slice has its own trie and precomputed mask. Inside a JSON string whole
/// slices are usually allowed at once, and in structural positions refused at once, so only the
/// small rest of the vocabulary is walked; inside a pattern like `[a-z]+` the lowercase family is
/// taken whole. Everything else goes into one more trie, walked at every new state.
public final class VocabularyIndex: Sendable {
    /// Character classes of the slice families, narrowest first: a token belongs to the first
    /// family whose class holds all its characters.
    static let families: [ScalarSet] = [
        ScalarSet([0x61...0x7A]),
        ScalarSet([0x41...0x5A, 0x61...0x7A]),
        ScalarSet([0x20...0x20, 0x41...0x5A, 0x61...0x7A]),
        JSONText.plainScalars,
    ]
    /// Inclusive character-count bounds of the slices of each family, shortest first.
    static let sliceBounds: [(min: Int32, max: Int32)] = [
        (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 8), (9, 10), (11, 12), (13, 16), (17, 24), (25, 32),
        (33, RunLimits.unbounded),
    ]

    /// The vocabulary this index was built from.
    public let vocabulary: Vocabulary
    /// The number of token ids (the size of masks and logit rows).
    public var vocabularySize: Int { vocabulary.count }

    let trie: TokenTrie
    /// `sliceRanges[family][slice]`: node range of that slice's trie.
    let sliceRanges: [[Range<Int>]]
    /// Node range of the trie of tokens in no slice.
    let restRange: Range<Int>
    /// `prefixUnions[family][k]`: the mask of that family's slices `0..<k`.
    let prefixUnions: [[TokenMask]]
    let endOfGenerationTokens: [Int32]
    /// Whether each token is matched as text (see `Vocabulary.isText`).
    let isText: [Bool]
    /// Tokens whose text starts inside a word — with an ASCII letter, digit or `_`, or any
    /// non-ASCII byte (letters of other scripts) — or with a space: appended to a word, they
    /// lengthen it or start another.
    public let wordContinuingTokens: TokenMask
    /// Unions of family prefixes already asked for, keyed by the prefix lengths.
    private let unions = Mutex<[[Int]: TokenMask]>([:])

    /// Builds the tries and slice masks (about 50 ms of CPU for a 152k-token vocabulary).
    public init(_ vocabulary: Vocabulary) {
        self.vocabulary = vocabulary
        let families = Self.families
        let bounds = Self.sliceBounds
        var slices = [[[Int32]]](repeating: [[Int32]](repeating: [], count: bounds.count), count: families.count)
        var rest: [Int32] = []
        var isText = vocabulary.tokenBytes.map { !$0.isEmpty }
        for id in vocabulary.endOfGenerationTokenIDs { isText[id] = false }
        for id in vocabulary.excludedTokenIDs where isText.indices.contains(id) { isText[id] = false }
        self.isText = isText
        var continuing = TokenMask(vocabularySize: vocabulary.count)
        for id in 0..<vocabulary.count where isText[id] {
            let first = vocabulary.tokenBytes[id][0]
            if first >= 0x80 || first == UInt8(ascii: "_") || first == UInt8(ascii: " ")
                || (0x30...0x39).contains(first)
                || (0x41...0x5A).contains(first) || (0x61...0x7A).contains(first)
            {
                continuing.insert(id)
            }
        }
        wordContinuingTokens = continuing
        for id in 0..<vocabulary.count where isText[id] {
            if let (family, length) = Self.classify(vocabulary.tokenBytes[id]),
                let slice = bounds.firstIndex(where: { length >= $0.min && length <= $0.max })
            {
                slices[family][slice].append(Int32(id))
            } else {
                rest.append(Int32(id))
            }
        }
        var trie = TokenTrie(bytes: vocabulary.tokenBytes)
        sliceRanges = slices.map { family in family.map { trie.append(tokens: $0) } }
        restRange = trie.append(tokens: rest)
        trie.finishBuilding()
        self.trie = trie

        let size = vocabulary.count
        prefixUnions = slices.map { family in
            var unions = [TokenMask(vocabularySize: size)]
            for tokens in family {
                var union = unions[unions.count - 1]
                for token in tokens { union.insert(Int(token)) }
                unions.append(union)
            }
            return unions
        }
        endOfGenerationTokens = vocabulary.endOfGenerationTokenIDs.sorted().map { Int32($0) }
    }

    /// The family and length in Unicode scalars of a token that is whole UTF-8 made only of plain
    /// string characters; nil otherwise. (A byte loop: this runs for every token of the vocabulary.)
    static func classify(_ bytes: [UInt8]) -> (family: Int, length: Int32)? {
        guard !bytes.isEmpty else { return nil }
        var count: Int32 = 0
        var family = 0
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            if lead < 0x80 {
                let ascii = asciiFamily[Int(lead)]
                guard ascii >= 0 else { return nil }
                family = max(family, Int(ascii))
                index += 1
            } else {
                // Whole, shortest-form UTF-8 of a scalar (no surrogates, nothing past U+10FFFF).
                let length: Int
                var second: ClosedRange<UInt8> = 0x80...0xBF
                switch lead {
                case 0xC2...0xDF: length = 2
                case 0xE0:
                    length = 3
                    second = 0xA0...0xBF
                case 0xE1...0xEC, 0xEE...0xEF: length = 3
                case 0xED:
                    length = 3
                    second = 0x80...0x9F
                case 0xF0:
                    length = 4
                    second = 0x90...0xBF
                case 0xF1...0xF3: length = 4
                case 0xF4:
                    length = 4
                    second = 0x80...0x8F
                default: return nil
                }
                guard index + length <= bytes.count, second.contains(bytes[index + 1]) else { return nil }
                for offset in 2..<max(length, 2) where bytes[index + offset] & 0xC0 != 0x80 { return nil }
                family = families.count - 1
                index += length
            }
            count += 1
        }
        return (family, count)
    }

    /// The narrowest family holding each ASCII character, or -1 for characters no slice holds.
    private static let asciiFamily: [Int8] = (0..<128).map { byte in
        let scalar = UInt32(byte)
        return Int8(families.firstIndex { $0.contains(scalar) } ?? -1)
    }

    /// The union of each family's first `admitted[family]` slices (cached: few combinations occur).
    func union(admitted: [Int]) -> TokenMask {
        if let known = unions.withLock({ $0[admitted] }) { return known }
        var union = TokenMask(vocabularySize: vocabularySize)
        for (family, count) in admitted.enumerated() where count > 0 {
            let part = prefixUnions[family][count]
            for index in union.words.indices { union.words[index] |= part.words[index] }
        }
        unions.withLock { $0[admitted] = union }
        return union
    }

    /// Trie nodes in all slices (for reports).
    package var nodeCount: Int { trie.nodes.count }
    /// Text tokens outside every slice (for reports).
    package var restTokenCount: Int { trie.nodes[restRange].filter { $0.token >= 0 }.count }
}
