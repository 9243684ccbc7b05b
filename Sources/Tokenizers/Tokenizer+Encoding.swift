import Foundation

extension Tokenizer {
    /// The token ids of `text`, with nothing added (no BOS/EOS).
    ///
    /// - Parameter parseSpecial: when `true`, control-token texts written in `text`
    ///   (`<|im_start|>`, `<|endoftext|>`) become their single tokens, as llama.cpp does for
    ///   rendered prompts. When `false` they are tokenized as ordinary text (what
    ///   `sotto tokenize` shows). User-defined tokens (`<tool_call>`) are matched whole in both
    ///   modes, as in llama.cpp and Hugging Face.
    public func encode(_ text: String, parseSpecial: Bool = false) -> [Int] {
        var text = text
        var out: [Int] = []
        text.withUTF8 { buffer in
            out.reserveCapacity(buffer.count / 3 + 1)
            withWordEncoder { encoder in
                var position = 0
                while position < buffer.count,
                    let (range, id) = specials.firstMatch(in: buffer, from: position, parseSpecial: parseSpecial)
                {
                    encodeFragment(UnsafeBufferPointer(rebasing: buffer[position..<range.lowerBound]), &encoder, &out)
                    out.append(id)
                    position = range.upperBound
                }
                if position < buffer.count {
                    encodeFragment(UnsafeBufferPointer(rebasing: buffer[position...]), &encoder, &out)
                }
            }
        }
        return out
    }

    /// Runs `body` with a merger whose table pointers stay valid for the call.
    private func withWordEncoder(_ body: (inout WordEncoder) -> Void) {
        merges.keys.withUnsafeBufferPointer { keys in
            merges.values.withUnsafeBufferPointer { values in
                byteTokens.withUnsafeBufferPointer { bytes in
                    CharClass.basicPlane.withUnsafeBufferPointer { classes in
                        var encoder = WordEncoder(
                            merger: BytePairMerger(
                                mergeKeys: keys.baseAddress!, mergeValues: values.baseAddress!, tableSize: keys.count,
                                byteTokens: bytes.baseAddress!),
                            classes: classes.baseAddress!)
                        body(&encoder)
                        encoder.merger.deallocate()
                    }
                }
            }
        }
    }

    /// Pre-tokenizes and merges one fragment of text that holds no special token.
    private func encodeFragment(_ fragment: UnsafeBufferPointer<UInt8>, _ encoder: inout WordEncoder, _ out: inout [Int]) {
        guard !fragment.isEmpty else { return }
        if normalizesToNFC && !NFC.isCertainlyNormalized(fragment) {
            var normalized = String(decoding: fragment, as: UTF8.self).precomposedStringWithCanonicalMapping
            normalized.withUTF8 { encodeWords($0, &encoder, &out) }
        } else {
            encodeWords(fragment, &encoder, &out)
        }
    }

    private func encodeWords(_ fragment: UnsafeBufferPointer<UInt8>, _ encoder: inout WordEncoder, _ out: inout [Int]) {
        guard let base = fragment.baseAddress else { return }
        var scanner = WordScanner(text: base, count: fragment.count, classes: encoder.classes, kind: preTokenizer)
        while let word = scanner.next() {
            if preTokenizer == .llama3, word.count > 1, let id = wholeWordToken(base + word.lowerBound, word.count) {
                out.append(id)  // Llama 3 ignores merges for words that are vocabulary entries
                continue
            }
            encoder.merger.encode(base + word.lowerBound, count: word.count, into: &out)
        }
    }

    private func wholeWordToken(_ word: UnsafePointer<UInt8>, _ count: Int) -> Int? {
        var text: [UInt8] = []
        text.reserveCapacity(count * 2)
        for i in 0..<count { ByteLevel.appendEncoded(word[i], to: &text) }
        return vocabulary.id(for: text)
    }
}

/// Per-call encoding state: the merger's scratch buffers and the class table.
struct WordEncoder {
    var merger: BytePairMerger
    let classes: UnsafePointer<UInt8>
}

/// A conservative NFC quick check: text made only of code points that are NFC-stable and never
/// combine with neighbours needs no normalization; anything else goes through Foundation.
enum NFC {
    static func isCertainlyNormalized(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress else { return true }
        var i = 0
        while i < text.count {
            if base[i] < 0x80 {
                i += 1
                continue
            }
            let (v, n) = UTF8Scalar.decode(base, at: i, end: text.count)
            guard isStable(v) else { return false }
            i += n
        }
        return true
    }

    /// Blocks without decompositions, combining marks or composing jamo.
    @inline(__always)
    static func isStable(_ v: UInt32) -> Bool {
        switch v {
        case 0..<0x300,  // ASCII, Latin-1, Latin Extended-A/B, IPA, spacing modifiers
            0x3040...0x3098, 0x309B...0x30FF,  // kana, less the combining voicing marks
            0x4E00...0x9FFF,  // CJK unified ideographs
            0xAC00...0xD7A3,  // precomposed Hangul syllables
            0xFF01...0xFF5E,  // fullwidth ASCII
            0x1F300...0x1FAFF:  // emoji and pictographs
            return true
        default:
            return false
        }
    }
}
