import Foundation

/// The shape of a Whisper network, read from the variables of its `model.bin`, and the decoding
/// rules of its `config.json`.
public struct WhisperConfig: Sendable, Equatable {
    /// Mel bins of the input (80; 128 for large-v3).
    public let melBins: Int
    /// Width of every layer (512 for base, 384 for tiny).
    public let width: Int
    public let encoderLayers: Int
    public let decoderLayers: Int
    public let encoderHeads: Int
    public let decoderHeads: Int
    /// Width of the feed-forward layers (4 × width).
    public let feedForwardWidth: Int
    /// Encoder positions: 1500 (30 s after the stride-2 convolution).
    public let audioContext: Int
    /// Decoder positions: 448 tokens.
    public let textContext: Int
    /// Tokens in the vocabulary (51865 multilingual, 51864 English-only).
    public let vocabularySize: Int

    /// Tokens never sampled (`suppress_ids` of `config.json`: symbols and the special tokens).
    public let suppressedTokens: [Int]
    /// Tokens never sampled first (`suppress_ids_begin`: a blank and end of text).
    public let suppressedAtBegin: [Int]
    /// The language tokens (`lang_ids`), in Whisper's language order.
    public let languageTokens: [Int]
    /// (layer, head) pairs whose cross-attention follows the words in time (`alignment_heads`).
    public let alignmentHeads: [[Int]]

    /// Reads the network's shape from `file` and the rules from `configJSON` (the bytes of
    /// `config.json`, at `configPath` for errors).
    public init(file: CTranslate2File, configJSON: Data, configPath: String) throws(WhisperModelError) {
        func shape(_ name: String, rank: Int) throws(WhisperModelError) -> [Int] {
            guard let v = file.variable(named: name) else {
                throw WhisperModelError(.missingVariable, "no variable '\(name)'", path: file.path)
            }
            guard v.shape.count == rank, v.shape.allSatisfy({ $0 > 0 }) else {
                throw WhisperModelError(
                    .missingVariable, "'\(name)' has shape \(v.shape), expected \(rank) positive dimensions",
                    path: file.path)
            }
            return v.shape
        }
        func heads(_ name: String, width: Int) throws(WhisperModelError) -> Int {
            guard let n = file.integer(name), n > 0, width % n == 0 else {
                throw WhisperModelError(
                    .missingVariable, "'\(name)' is missing or does not divide the width \(width)", path: file.path)
            }
            return n
        }
        func layers(_ prefix: String) -> Int {
            var n = 0
            while file.variable(named: "\(prefix)/layer_\(n)/ffn/linear_0/weight") != nil { n += 1 }
            return n
        }
        guard file.specName == "WhisperSpec" else {
            throw WhisperModelError(
                .unsupported, "the spec is '\(file.specName)', not WhisperSpec", path: file.path)
        }
        let conv = try shape("encoder/conv1/weight", rank: 3)
        width = conv[0]
        melBins = conv[1]
        guard conv[2] == 3 else {
            throw WhisperModelError(
                .missingVariable, "encoder/conv1 has kernel \(conv[2]), expected 3", path: file.path)
        }
        encoderLayers = layers("encoder")
        decoderLayers = layers("decoder")
        guard encoderLayers > 0, decoderLayers > 0 else {
            throw WhisperModelError(.missingVariable, "the encoder or the decoder has no layers", path: file.path)
        }
        feedForwardWidth = try shape("encoder/layer_0/ffn/linear_0/weight", rank: 2)[0]
        encoderHeads = try heads("encoder/num_heads", width: width)
        decoderHeads = try heads("decoder/num_heads", width: width)
        audioContext = try shape("encoder/position_encodings/encodings", rank: 2)[0]
        textContext = try shape("decoder/position_encodings/encodings", rank: 2)[0]
        vocabularySize = try shape("decoder/embeddings/weight", rank: 2)[0]
        // Whisper's widths are multiples of 64, so every product's inner size is a multiple of
        // the kernels' block of 32.
        guard width % 64 == 0, feedForwardWidth % 32 == 0, width / encoderHeads == width / decoderHeads else {
            throw WhisperModelError(
                .unsupported, "width \(width) / feed-forward \(feedForwardWidth) are not Whisper's", path: file.path)
        }

        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: configJSON) as? [String: Any] else {
                throw WhisperModelError(.badCompanion, "not a JSON object", path: configPath)
            }
            object = parsed
        } catch let error as WhisperModelError {
            throw error
        } catch {
            throw WhisperModelError(.badCompanion, "not JSON: \(error.localizedDescription)", path: configPath)
        }
        let vocabulary = vocabularySize
        func ids(_ key: String) throws(WhisperModelError) -> [Int] {
            guard let value = object[key] else { return [] }
            guard let list = value as? [Any], let numbers = Optional(list.compactMap { ($0 as? NSNumber)?.intValue }),
                numbers.count == list.count, numbers.allSatisfy({ (0..<vocabulary).contains($0) })
            else {
                throw WhisperModelError(
                    .badCompanion, "'\(key)' is not a list of token ids below \(vocabulary)", path: configPath)
            }
            return numbers
        }
        suppressedTokens = try ids("suppress_ids")
        suppressedAtBegin = try ids("suppress_ids_begin")
        languageTokens = try ids("lang_ids")
        alignmentHeads =
            (object["alignment_heads"] as? [[Any]])?.map { $0.compactMap { ($0 as? NSNumber)?.intValue } } ?? []
    }

    /// Width of one attention head (64 for every Whisper).
    public var headWidth: Int { width / encoderHeads }
}
