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

    /// BPE of one word's bytes with the quadratic scan or, with `forceHeap`, the heap (a test
    /// hook: both must agree).
    package func mergeWord(_ bytes: [UInt8], forceHeap: Bool) -> [Int] {
        var out: [Int] = []
        guard !bytes.isEmpty else { return out }
        withWordEncoder(scanLimit: forceHeap ? 1 : Int.max) { encoder in
            bytes.withUnsafeBufferPointer { encoder.merger.encode($0.baseAddress!, count: $0.count, into: &out) }
        }
        return out
    }

    /// Runs `body` with a merger whose table pointers stay valid for the call.
    private func withWordEncoder(
        scanLimit: Int = BytePairMerger.defaultScanLimit, _ body: (inout WordEncoder) -> Void
    ) {
        // An empty rule list still needs a valid pointer.
        (merges.rules.isEmpty ? [0, 0] : merges.rules).withUnsafeBufferPointer { rules in
            merges.index.withUnsafeBufferPointer { index in
                byteTokens.withUnsafeBufferPointer { bytes in
                    CharClass.basicPlane.withUnsafeBufferPointer { classes in
                        var encoder = WordEncoder(
                            merger: BytePairMerger(
                                rules: rules.baseAddress!, index: index, byteTokens: bytes.baseAddress!,
                                scanLimit: scanLimit),
                            classes: classes.baseAddress!)
                        body(&encoder)
                        encoder.merger.deallocate()
                    }
                }
            }
        }
    }

    /// Pre-tokenizes and merges one fragment of text that holds no special token.
    private func encodeFragment(
        _ fragment: UnsafeBufferPointer<UInt8>, _ encoder: inout WordEncoder, _ out: inout [Int]
    ) {
        guard !fragment.isEmpty else { return }
        if normalizesToNFC, let normalized = NFC.normalize(fragment) {
            normalized.withUnsafeBufferPointer { encodeWords($0, &encoder, &out) }
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
            let start = base + word.lowerBound
            guard word.count > 1 && word.count <= WordCache.maxWordLength else {
                encoder.merger.encode(start, count: word.count, into: &out)
                continue
            }
            let hash = WordCache.hash(start, word.count)
            var slot = 0
            if encoder.cache.lookup(start, word.count, hash: hash, slot: &slot, into: &out) { continue }
            let first = out.count
            encoder.merger.encode(start, count: word.count, into: &out)
            encoder.cache.insert(start, word.count, hash: hash, slot: slot, ids: out[first...])
        }
    }

    private func wholeWordToken(_ word: UnsafePointer<UInt8>, _ count: Int) -> Int? {
        var text: [UInt8] = []
        text.reserveCapacity(count * 2)
        for i in 0..<count { ByteLevel.appendEncoded(word[i], to: &text) }
        return vocabulary.id(for: text)
    }
}

/// Per-call encoding state: the merger's scratch buffers, the word cache and the class table.
struct WordEncoder {
    var merger: BytePairMerger
    let classes: UnsafePointer<UInt8>
    var cache = WordCache()
}

/// NFC normalization that touches only what needs it: text is cut before code points that
/// are NFC-stable starters (never composing with what precedes them), and only the runs
/// holding other code points go through the normalizer.
enum NFC {
    /// `text` in NFC, or `nil` when it already is (the common case: no copy).
    static func normalize(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let base = text.baseAddress else { return nil }
        var out: [UInt8]? = nil
        var copied = 0
        var starter = 0  // start of the last stable code point
        var i = 0
        while i < text.count {
            if base[i] < 0x80 {
                starter = i
                i += 1
                continue
            }
            let (v, n) = UTF8Scalar.decode(base, at: i, end: text.count)
            if isStable(v) {
                starter = i
                i += n
                continue
            }
            // The run to normalize: from the preceding starter up to the next stable one.
            var end = i + n
            while end < text.count {
                if base[end] < 0x80 { break }
                let (w, m) = UTF8Scalar.decode(base, at: end, end: text.count)
                if isStable(w) { break }
                end += m
            }
            let run = String(decoding: UnsafeBufferPointer(rebasing: text[starter..<end]), as: UTF8.self)
            if out == nil {
                out = []
                out!.reserveCapacity(text.count + 16)
            }
            out!.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied..<starter]))
            // The standard library's normalizer (what String comparison uses) is several
            // times faster than Foundation's.
            out!.append(contentsOf: run._nfcCodeUnits)
            copied = end
            i = end
        }
        guard var result = out else { return nil }
        result.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied...]))
        return result.elementsEqual(text) ? nil : result
    }

    /// Code points that are NFC starters which never combine with a preceding code point:
    /// whole blocks without combining marks or composing jamo.
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
