/// The rule that splits text into words before byte-level BPE merges them. GGUF files name it
/// in `tokenizer.ggml.pre`; each case is a hand-written scanner equivalent to the regex its
/// Hugging Face tokenizer uses.
public enum PreTokenizer: String, Sendable, CaseIterable {
    /// GPT-2: `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`.
    case gpt2
    /// SmolLM / StarCoder: every `\p{N}` split off on its own first, then the GPT-2 rule.
    case smollm
    /// Qwen2: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`.
    case qwen2
    /// Llama 3: as Qwen2 but numbers in groups of up to three digits (`\p{N}{1,3}`), and a
    /// word that is itself a vocabulary entry is taken whole without merging.
    case llama3

    /// The pre-tokenizer for a `tokenizer.ggml.pre` value, following llama.cpp's aliases.
    /// `nil` for names it does not know.
    public init?(ggufName name: String) {
        switch name {
        case "qwen2", "stablelm2", "hunyuan":
            self = .qwen2
        case "smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva":
            self = .smollm
        case "llama3", "llama-v3", "llama-bpe", "falcon3", "pixtral", "dbrx", "smaug-bpe":
            self = .llama3
        case "gpt2", "gpt-2", "phi-2", "mpt", "olmo", "jais", "jina-es", "jina-de", "jina-v2-es", "jina-v2-de":
            self = .gpt2
        default:
            return nil
        }
    }
}

/// Walks one fragment of UTF-8 text and yields the byte ranges of its words.
struct WordScanner {
    private let text: UnsafePointer<UInt8>
    private let end: Int
    private let classes: UnsafePointer<UInt8>
    private let kind: PreTokenizer
    private var position = 0
    /// SmolLM: end of the current run without digits, which bounds the GPT-2 rule's lookahead.
    private var segmentEnd = 0

    /// `classes` is `CharClass.basicPlane`.
    init(text: UnsafePointer<UInt8>, count: Int, classes: UnsafePointer<UInt8>, kind: PreTokenizer) {
        self.text = text
        self.end = count
        self.classes = classes
        self.kind = kind
    }

    /// The next word, or `nil` at the end of the fragment.
    mutating func next() -> Range<Int>? {
        guard position < end else { return nil }
        let start = position
        switch kind {
        case .gpt2: position = gpt2Word(at: start, limit: end)
        case .smollm: position = smollmWord(at: start)
        case .qwen2: position = qwenWord(at: start, maxDigits: 1)
        case .llama3: position = qwenWord(at: start, maxDigits: 3)
        }
        return start..<position
    }

    // MARK: Reading code points

    /// Code point at `i` (which must be below `limit`), its class and byte length.
    @inline(__always)
    private func scalar(at i: Int) -> (value: UInt32, cls: UInt8, length: Int) {
        let b = text[i]
        if b < 0x80 { return (UInt32(b), classes[Int(b)], 1) }
        let (v, n) = UTF8Scalar.decode(text, at: i, end: end)
        return (v, v < 0x10000 ? classes[Int(v)] : CharClass.classifySupplementary(v), n)
    }

    /// Class at `i`, or `nil` at or past `limit` (the regex's end of input).
    @inline(__always)
    private func cls(at i: Int, limit: Int) -> UInt8? {
        i < limit ? scalar(at: i).cls : nil
    }

    /// End of a contraction (`'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d`) at `i`, or `nil`.
    /// `ignoringCase` gives Qwen2's `(?i:…)`.
    @inline(__always)
    private func contractionEnd(at i: Int, limit: Int, ignoringCase: Bool) -> Int? {
        guard text[i] == UInt8(ascii: "'"), i + 1 < limit else { return nil }
        // `c | 0x20` equals a lowercase ASCII letter only for that letter and its capital.
        let fold: UInt8 = ignoringCase ? 0x20 : 0
        let c1 = text[i + 1] | fold
        switch c1 {
        case UInt8(ascii: "s"), UInt8(ascii: "t"), UInt8(ascii: "m"), UInt8(ascii: "d"):
            return i + 2
        case UInt8(ascii: "r"), UInt8(ascii: "v"), UInt8(ascii: "l"):
            guard i + 2 < limit else { return nil }
            let c2 = text[i + 2] | fold
            let want = c1 == UInt8(ascii: "l") ? UInt8(ascii: "l") : UInt8(ascii: "e")
            return c2 == want ? i + 3 : nil
        default:
            return nil
        }
    }

    /// End of the run of code points of class `c` starting at `i`.
    @inline(__always)
    private func runEnd(of c: UInt8, from i: Int, limit: Int) -> Int {
        var p = i
        while p < limit {
            let s = scalar(at: p)
            if s.cls != c { break }
            p += s.length
        }
        return p
    }

    // MARK: GPT-2

    private func gpt2Word(at pos: Int, limit: Int) -> Int {
        if let e = contractionEnd(at: pos, limit: limit, ignoringCase: false) { return e }
        let first = scalar(at: pos)
        // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: an optional space, then a run of one class.
        var body = pos
        var bodyClass: UInt8? = first.cls
        if first.value == 0x20 {
            body = pos + 1
            bodyClass = cls(at: body, limit: limit)
        }
        if let c = bodyClass, c != CharClass.whitespace {
            return runEnd(of: c, from: body, limit: limit)
        }
        return whitespaceWord(at: pos, limit: limit)
    }

    /// `\s+(?!\S)|\s+` at a whitespace code point: the run, less its last code point when a
    /// non-space follows (that one starts the next word).
    @inline(__always)
    private func whitespaceWord(at pos: Int, limit: Int) -> Int {
        var p = pos
        var last = pos
        var count = 0
        while p < limit {
            let s = scalar(at: p)
            if s.cls != CharClass.whitespace { break }
            last = p
            p += s.length
            count += 1
        }
        if count == 0 { return pos + scalar(at: pos).length }  // unreachable: every class matches
        if count > 1 && p < limit { return last }
        return p
    }

    // MARK: SmolLM

    private mutating func smollmWord(at pos: Int) -> Int {
        let first = scalar(at: pos)
        if first.cls == CharClass.number { return pos + first.length }
        if segmentEnd <= pos {
            var p = pos
            while p < end {
                let s = scalar(at: p)
                if s.cls == CharClass.number { break }
                p += s.length
            }
            segmentEnd = p
        }
        return gpt2Word(at: pos, limit: segmentEnd)
    }

    // MARK: Qwen2 / Llama 3

    private func qwenWord(at pos: Int, maxDigits: Int) -> Int {
        let limit = end
        if let e = contractionEnd(at: pos, limit: limit, ignoringCase: true) { return e }
        let first = scalar(at: pos)
        let isNewline = first.value == 0x0A || first.value == 0x0D

        // [^\r\n\p{L}\p{N}]?\p{L}+
        if first.cls == CharClass.letter {
            return runEnd(of: CharClass.letter, from: pos + first.length, limit: limit)
        }
        if !isNewline && first.cls != CharClass.number,
            cls(at: pos + first.length, limit: limit) == CharClass.letter
        {
            return runEnd(of: CharClass.letter, from: pos + first.length, limit: limit)
        }

        // \p{N} or \p{N}{1,3}
        if first.cls == CharClass.number {
            var p = pos + first.length
            var n = 1
            while n < maxDigits, p < limit {
                let s = scalar(at: p)
                if s.cls != CharClass.number { break }
                p += s.length
                n += 1
            }
            return p
        }

        // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
        var body = pos
        if first.value == 0x20 { body = pos + 1 }
        if cls(at: body, limit: limit) == CharClass.other {
            var p = runEnd(of: CharClass.other, from: body, limit: limit)
            while p < limit && (text[p] == 0x0A || text[p] == 0x0D) { p += 1 }
            return p
        }

        // \s*[\r\n]+ : up to the last newline of the whitespace run; else \s+(?!\S)|\s+
        var p = pos
        var afterNewline = -1
        while p < limit {
            let s = scalar(at: p)
            if s.cls != CharClass.whitespace { break }
            if s.value == 0x0A || s.value == 0x0D { afterNewline = p + 1 }
            p += s.length
        }
        if afterNewline >= 0 { return afterNewline }
        return whitespaceWord(at: pos, limit: limit)
    }
}
