import Foundation

/// A byte-level BPE tokenizer (the `gpt2` tokenizer model of GGUF files), as used by Qwen2,
/// SmolLM, Llama 3 and GPT-2 style models.
///
/// ```swift
/// let tokenizer = try Tokenizer(gguf: file)
/// let ids = tokenizer.encode("<|im_start|>user\nHi<|im_end|>", parseSpecial: true)
/// let text = tokenizer.decode(ids)
/// ```
///
/// Encoding follows llama.cpp's `llama_tokenize`: special-token texts are split off first,
/// each remaining fragment is cut into words by the `pre` rule, and each word's bytes are
/// merged by rank. Qwen2 vocabularies also NFC-normalize each fragment first, as their Hugging
/// Face tokenizer does (llama.cpp skips this, so text that is not in NFC, such as `e` plus a
/// combining acute accent, gets the ids the model was trained with here and different ones
/// there). Ids equal Hugging Face's on the golden corpus in Tests/TokenizersTests/Fixtures.
public final class Tokenizer: Sendable {
    /// Number of vocabulary entries.
    public let vocabularySize: Int
    /// The word-splitting rule in use.
    public let preTokenizer: PreTokenizer
    /// `true` when `tokenizer.ggml.pre` was missing or unknown and `gpt2` was used instead
    /// (llama.cpp's "default" pre-tokenizer warning: tokens may differ from the model's).
    public let usesFallbackPreTokenizer: Bool
    public let bosTokenID: Int?
    public let eosTokenID: Int?
    public let paddingTokenID: Int?
    /// Tokens that end generation: `eos` plus `<|im_end|>`, `<|endoftext|>` and the other
    /// names llama.cpp puts in its end-of-generation set (including FIM pad/repo/file-sep).
    public let endOfGenerationTokenIDs: Set<Int>
    /// Control, unknown, unused and padding tokens. End-of-generation tokens are control
    /// tokens too; see `suppressedTokenIDs` for the set to mask from sampling.
    public let controlTokenIDs: Set<Int>
    /// `controlTokenIDs` less `endOfGenerationTokenIDs`: what a sampler should never pick.
    public let suppressedTokenIDs: Set<Int>

    let vocabulary: TokenTextTable
    let types: [UInt8]
    /// Token `i` decodes to `pieces[pieceOffsets[i]..<pieceOffsets[i + 1]]`.
    let pieces: [UInt8]
    let pieceOffsets: [Int32]
    /// Token of each single byte, -1 if the vocabulary lacks it.
    let byteTokens: [Int32]
    let merges: MergeTable
    let specials: SpecialTokenMatcher
    let normalizesToNFC: Bool
    /// Merge rules dropped because a side or the result is not in the vocabulary.
    package let skippedMergeCount: Int

    /// Builds a tokenizer from the vocabulary arrays of a GGUF file.
    ///
    /// - Parameters:
    ///   - tokens: `tokenizer.ggml.tokens`, in the byte-level alphabet.
    ///   - tokenTypes: `tokenizer.ggml.token_type` (empty means all normal).
    ///   - merges: `tokenizer.ggml.merges`, `"left right"`, highest priority first.
    ///   - preTokenizer: `tokenizer.ggml.pre`; an unknown name falls back to `gpt2`.
    public init(
        tokens: [String], tokenTypes: [Int], merges: [String], preTokenizer: String,
        bosTokenID: Int?, eosTokenID: Int?, paddingTokenID: Int? = nil
    ) throws {
        guard !tokens.isEmpty else {
            throw TokenizerError.invalidValue(key: "tokenizer.ggml.tokens", reason: "the vocabulary is empty")
        }
        guard tokenTypes.isEmpty || tokenTypes.count == tokens.count else {
            throw TokenizerError.invalidValue(
                key: "tokenizer.ggml.token_type",
                reason: "\(tokenTypes.count) entries for \(tokens.count) tokens")
        }
        for (key, id) in [
            ("tokenizer.ggml.bos_token_id", bosTokenID), ("tokenizer.ggml.eos_token_id", eosTokenID),
            ("tokenizer.ggml.padding_token_id", paddingTokenID),
        ] {
            if let id, !(0..<tokens.count).contains(id) {
                throw TokenizerError.invalidValue(
                    key: key, reason: "id \(id) is outside the vocabulary of \(tokens.count)")
            }
        }
        let n = tokens.count
        vocabularySize = n
        let kind = PreTokenizer(ggufName: preTokenizer)
        self.preTokenizer = kind ?? .gpt2
        usesFallbackPreTokenizer = kind == nil
        normalizesToNFC = kind == .qwen2
        self.bosTokenID = bosTokenID
        self.eosTokenID = eosTokenID
        self.paddingTokenID = paddingTokenID

        let vocabulary = TokenTextTable(tokens: tokens)
        self.vocabulary = vocabulary
        var types =
            tokenTypes.isEmpty
            ? [UInt8](repeating: UInt8(TokenType.normal.rawValue), count: n)
            : tokenTypes.map { UInt8(clamping: $0) }

        // End of generation, as llama.cpp decides it from token texts; those tokens are
        // treated as control tokens even if the file says otherwise.
        var endOfGeneration = Set<Int>()
        for name in Self.endOfGenerationNames {
            if let id = vocabulary.id(for: Array(name.utf8)) { endOfGeneration.insert(id) }
        }
        // llama.cpp also stops on "</s>"; in Qwen's vocabulary that is an ordinary token (HTML's
        // strikethrough end tag), so it counts only where the file marks it as control.
        if let id = vocabulary.id(for: Array("</s>".utf8)), types[id] == UInt8(TokenType.control.rawValue) {
            endOfGeneration.insert(id)
        }
        for group in Self.fillInMiddleEndNames {
            if let id = group.lazy.compactMap({ vocabulary.id(for: Array($0.utf8)) }).first {
                endOfGeneration.insert(id)
            }
        }
        if let eosTokenID { endOfGeneration.insert(eosTokenID) }
        for id in endOfGeneration where types[id] != UInt8(TokenType.control.rawValue) {
            types[id] = UInt8(TokenType.control.rawValue)
        }
        self.types = types
        endOfGenerationTokenIDs = endOfGeneration

        var control = Set<Int>()
        for id in 0..<n {
            switch TokenType(rawValue: Int(types[id])) {
            case .control, .unknown, .unused: control.insert(id)
            default: break
            }
        }
        if let paddingTokenID { control.insert(paddingTokenID) }
        controlTokenIDs = control
        suppressedTokenIDs = control.subtracting(endOfGeneration)

        (pieces, pieceOffsets) = Self.decodedPieces(vocabulary, types)

        var byteTokens = [Int32](repeating: -1, count: 256)
        for b in 0..<256 {
            var text: [UInt8] = []
            ByteLevel.appendEncoded(UInt8(b), to: &text)
            if let id = vocabulary.id(for: text) { byteTokens[b] = Int32(id) }
        }
        self.byteTokens = byteTokens

        (self.merges, skippedMergeCount) = Self.mergeTable(merges, vocabulary)

        var specialEntries: [(text: [UInt8], id: Int, alwaysMatched: Bool)] = []
        for id in 0..<n {
            switch TokenType(rawValue: Int(types[id])) {
            case .control, .unknown: specialEntries.append((Array(vocabulary.text(of: id)), id, false))
            case .userDefined: specialEntries.append((Array(vocabulary.text(of: id)), id, true))
            default: break
            }
        }
        specials = SpecialTokenMatcher(specialEntries)
    }

    /// Texts llama.cpp treats as end of generation.
    static let endOfGenerationNames = [
        "<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|eom_id|>", "<EOT>", "_<EOT>",
        "<|end_of_text|>", "<end_of_utterance>",
    ]
    /// Fill-in-the-middle pad, repository and file-separator tokens (first found of each
    /// group), which llama.cpp also stops on.
    static let fillInMiddleEndNames = [
        ["<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>"],
        ["<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"],
        ["<|file_sep|>"],
    ]

    private static func decodedPieces(_ vocabulary: TokenTextTable, _ types: [UInt8]) -> ([UInt8], [Int32]) {
        var pieces: [UInt8] = []
        pieces.reserveCapacity(vocabulary.blob.count)
        var offsets: [Int32] = [0]
        offsets.reserveCapacity(vocabulary.count + 1)
        vocabulary.blob.withUnsafeBufferPointer { blob in
            for id in 0..<vocabulary.count {
                let text = UnsafeBufferPointer(
                    rebasing: blob[Int(vocabulary.offsets[id])..<Int(vocabulary.offsets[id + 1])])
                switch TokenType(rawValue: Int(types[id])) {
                case .control, .userDefined, .unknown:
                    pieces.append(contentsOf: text)
                case .byte:
                    // `<0xAB>`
                    if text.count == 6, let b = UInt8(String(decoding: text[3..<5], as: UTF8.self), radix: 16) {
                        pieces.append(b)
                    } else {
                        ByteLevel.appendDecoded(text, to: &pieces)
                    }
                default:
                    ByteLevel.appendDecoded(text, to: &pieces)
                }
                offsets.append(Int32(pieces.count))
            }
        }
        return (pieces, offsets)
    }

    private static func mergeTable(_ merges: [String], _ vocabulary: TokenTextTable) -> (MergeTable, Int) {
        var table = MergeTable(capacity: merges.count)
        var skipped = 0
        var joined: [UInt8] = []
        // Vocabularies made by BPE training list merge results in merge order, so the result of
        // rank r is usually token r + offset: checking that guess reads the texts in order
        // instead of probing the hash index at random.
        var resultOffset = 0
        var rules: [(left: Int32, right: Int32, rank: Int, merged: Int32)] = []
        rules.reserveCapacity(merges.count)
        vocabulary.blob.withUnsafeBufferPointer { blob in
            vocabulary.offsets.withUnsafeBufferPointer { offsets in
                for (rank, merge) in merges.enumerated() {
                    var merge = merge
                    let ok: Bool = merge.withUTF8 { m in
                        // The separator is the first space after the first byte (llama.cpp's rule).
                        guard m.count >= 3, let space = m[1...].firstIndex(of: 0x20) else { return false }
                        let left = UnsafeBufferPointer(rebasing: m[..<space])
                        let right = UnsafeBufferPointer(rebasing: m[(space + 1)...])
                        guard let l = vocabulary.id(for: left), let r = vocabulary.id(for: right) else { return false }
                        joined.removeAll(keepingCapacity: true)
                        joined.append(contentsOf: left)
                        joined.append(contentsOf: right)
                        let guess = rank + resultOffset
                        var merged: Int? = nil
                        if guess >= 0 && guess < vocabulary.count {
                            let start = Int(offsets[guess])
                            let text = UnsafeBufferPointer(rebasing: blob[start..<Int(offsets[guess + 1])])
                            if text.elementsEqual(joined) { merged = guess }
                        }
                        if merged == nil {
                            merged = vocabulary.id(for: joined)
                            if let merged { resultOffset = merged - rank }
                        }
                        guard let merged else { return false }
                        rules.append((Int32(l), Int32(r), rank, Int32(merged)))
                        return true
                    }
                    if !ok { skipped += 1 }
                }
            }
        }
        table.insert(rules)
        return (table, skipped)
    }

    // MARK: Lookups

    /// The id of the vocabulary entry whose stored text is exactly `text` (for example
    /// `"<|im_end|>"`, or `"Ġthe"` for an ordinary token), or `nil`.
    public func tokenID(for text: String) -> Int? {
        vocabulary.id(for: Array(text.utf8))
    }

    /// The kind of token `id`; `.undefined` outside the vocabulary.
    public func tokenType(_ id: Int) -> TokenType {
        guard id >= 0 && id < vocabularySize else { return .undefined }
        return TokenType(rawValue: Int(types[id])) ?? .undefined
    }

    /// Whether `id` is a control, unknown, unused or padding token, or outside the vocabulary:
    /// one to keep out of free sampling (allow `endOfGenerationTokenIDs` separately).
    public func isControl(_ id: Int) -> Bool {
        guard id >= 0 && id < vocabularySize else { return true }
        return controlTokenIDs.contains(id)
    }

    /// The bytes token `id` stands for: ordinary tokens through the inverse GPT-2 byte map,
    /// control and user-defined tokens as their text. Empty for ids outside the vocabulary.
    public func tokenBytes(_ id: Int) -> [UInt8] {
        guard id >= 0 && id < vocabularySize else { return [] }
        return Array(pieces[Int(pieceOffsets[id])..<Int(pieceOffsets[id + 1])])
    }

    /// Appends token `id`'s bytes to `out` without an intermediate array.
    package func appendBytes(of id: Int, to out: inout [UInt8]) {
        guard id >= 0 && id < vocabularySize else { return }
        out.append(contentsOf: pieces[Int(pieceOffsets[id])..<Int(pieceOffsets[id + 1])])
    }

    /// The text of a token sequence, control tokens included. Byte sequences that are not
    /// valid UTF-8 (a sequence cut off by the end of `ids`) become U+FFFD.
    public func decode(_ ids: [Int]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(ids.count * 4)
        for id in ids { appendBytes(of: id, to: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
