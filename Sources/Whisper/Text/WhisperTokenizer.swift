import Foundation
import Tokenizers

/// Whisper's vocabulary: the byte-level BPE tokens (GPT-2's, with Whisper's merges) followed by
/// the special tokens — end of text, start of transcript, a token per language, the tasks,
/// no-timestamps and the timestamps `<|0.00|>` … `<|30.00|>`.
///
/// The special tokens are found by their text in `vocabulary.txt` (line k is token k − 1), so
/// the multilingual and the English-only numbering (one lower) both work.
public struct WhisperTokenizer: Sendable {
    /// The BPE tokenizer: decoding, and encoding a prompt.
    public let bpe: Tokenizer
    /// Token texts as `vocabulary.txt` has them.
    public let texts: [String]

    public let endOfText: Int
    public let startOfTranscript: Int
    public let translate: Int
    public let transcribe: Int
    public let startOfPrevious: Int
    public let noTimestamps: Int
    /// `<|0.00|>`: every token from here on is a timestamp.
    public let timestampBegin: Int
    /// `<|nospeech|>` (or `<|nocaptions|>`), when the vocabulary has it.
    public let noSpeech: Int?
    /// Language code → its token, for the languages this model knows.
    public let languages: [String: Int]
    /// Whether the model is multilingual (takes a language and a task token).
    public let isMultilingual: Bool

    /// Reads `vocabulary.txt` and the merges of `tokenizer.json`.
    /// - Parameter languageTokens: the `lang_ids` of `config.json`.
    public init(
        vocabulary: Data, vocabularyPath: String, tokenizerJSON: Data, tokenizerPath: String, languageTokens: [Int],
        vocabularySize: Int
    ) throws(WhisperModelError) {
        guard let text = String(data: vocabulary, encoding: .utf8) else {
            throw WhisperModelError(.badCompanion, "not UTF-8", path: vocabularyPath)
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard lines.count == vocabularySize else {
            throw WhisperModelError(
                .badCompanion, "\(lines.count) tokens, but the model's embeddings have \(vocabularySize) rows",
                path: vocabularyPath)
        }
        texts = lines
        var byText: [String: Int] = [:]
        for (id, token) in lines.enumerated() where token.hasPrefix("<|") { byText[token] = id }
        func special(_ names: String...) throws(WhisperModelError) -> Int {
            for name in names { if let id = byText[name] { return id } }
            throw WhisperModelError(.badCompanion, "no token \(names[0])", path: vocabularyPath)
        }
        endOfText = try special("<|endoftext|>")
        startOfTranscript = try special("<|startoftranscript|>")
        translate = try special("<|translate|>")
        transcribe = try special("<|transcribe|>")
        startOfPrevious = try special("<|startofprev|>")
        noTimestamps = try special("<|notimestamps|>")
        timestampBegin = try special("<|0.00|>")
        noSpeech = byText["<|nospeech|>"] ?? byText["<|nocaptions|>"]
        // An English-only model still lists the language tokens; its vocabulary is one shorter.
        isMultilingual = vocabularySize >= 51865
        var languages: [String: Int] = [:]
        for id in languageTokens where id < lines.count {
            let token = lines[id]
            if token.hasPrefix("<|"), token.hasSuffix("|>") { languages[String(token.dropFirst(2).dropLast(2))] = id }
        }
        guard !isMultilingual || languages["en"] != nil else {
            throw WhisperModelError(
                .badCompanion, "a multilingual model without <|en|> in its lang_ids", path: vocabularyPath)
        }
        self.languages = languages

        let merges: [String]
        do {
            guard let object = try JSONSerialization.jsonObject(with: tokenizerJSON) as? [String: Any],
                let model = object["model"] as? [String: Any], let list = model["merges"] as? [Any]
            else { throw WhisperModelError(.badCompanion, "no model.merges", path: tokenizerPath) }
            // Older files write a merge as "a b", newer ones as ["a", "b"].
            merges = list.compactMap { item in
                if let pair = item as? String { return pair }
                if let pair = item as? [String], pair.count == 2 { return pair[0] + " " + pair[1] }
                return nil
            }
        } catch let error as WhisperModelError {
            throw error
        } catch {
            throw WhisperModelError(.badCompanion, "not JSON: \(error.localizedDescription)", path: tokenizerPath)
        }
        // The special tokens are control tokens (never produced from text); an empty entry
        // (GPT-2's unused id 50256 in the multilingual vocabulary) gets a name no text makes.
        let special = endOfText
        let tokens = lines.enumerated().map { id, token in token.isEmpty ? "<|unused-\(id)|>" : token }
        let types = (0..<lines.count).map { id in
            id >= special || lines[id].isEmpty ? TokenType.control.rawValue : TokenType.normal.rawValue
        }
        do {
            bpe = try Tokenizer(
                tokens: tokens, tokenTypes: types, merges: merges, preTokenizer: "gpt2", bosTokenID: nil,
                eosTokenID: endOfText)
        } catch {
            throw WhisperModelError(.badCompanion, "cannot build the tokenizer: \(error)", path: tokenizerPath)
        }
    }

    /// The text of `tokens`, special tokens and timestamps left out.
    public func text(of tokens: [Int]) -> String {
        bpe.decode(tokens.filter { $0 < endOfText })
    }

    /// Tokens for `text` (a prompt), without special tokens.
    public func encode(_ text: String) -> [Int] {
        bpe.encode(text).filter { $0 < endOfText }
    }

    /// The code of a language token (`"en"` for `<|en|>`).
    public func languageCode(of token: Int) -> String? {
        languages.first { $0.value == token }?.key
    }
}
