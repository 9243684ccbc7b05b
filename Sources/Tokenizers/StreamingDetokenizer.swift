/// Turns generated tokens into text one token at a time without ever emitting a broken UTF-8
/// sequence: bytes of a character split across tokens (emoji, CJK) are held back until the
/// character is complete.
///
/// ```swift
/// var detokenizer = StreamingDetokenizer(tokenizer: tokenizer)
/// for id in generated { print(detokenizer.append(id), terminator: "") }
/// print(detokenizer.flush())
/// ```
public struct StreamingDetokenizer: Sendable {
    private let tokenizer: Tokenizer
    private var pending: [UInt8] = []

    public init(tokenizer: Tokenizer) {
        self.tokenizer = tokenizer
    }

    /// The text completed by token `id` (possibly empty). Control tokens contribute their
    /// text, as in `Tokenizer.tokenBytes`.
    public mutating func append(_ id: Int) -> String {
        tokenizer.appendBytes(of: id, to: &pending)
        let cut = Self.completePrefixLength(pending)
        guard cut > 0 else { return "" }
        let text = String(decoding: pending[..<cut], as: UTF8.self)
        pending.removeFirst(cut)
        return text
    }

    /// Whatever is still held back; an unfinished sequence becomes U+FFFD.
    public mutating func flush() -> String {
        defer { pending.removeAll() }
        return String(decoding: pending, as: UTF8.self)
    }

    /// Length of the longest prefix that does not end inside a UTF-8 sequence that later
    /// bytes could still complete.
    static func completePrefixLength(_ bytes: [UInt8]) -> Int {
        let n = bytes.count
        // A sequence is at most 4 bytes: look back at most 3 for its lead byte.
        var i = n - 1
        while i >= 0 && i >= n - 4 {
            let b = bytes[i]
            if b & 0xC0 != 0x80 {  // a lead byte (or ASCII)
                let need: Int
                if b < 0x80 {
                    need = 1
                } else if b & 0xE0 == 0xC0 {
                    need = 2
                } else if b & 0xF0 == 0xE0 {
                    need = 3
                } else if b & 0xF8 == 0xF0 {
                    need = 4
                } else {
                    need = 1
                }  // invalid lead: nothing can complete it
                return n - i < need ? i : n
            }
            i -= 1
        }
        // Only continuation bytes at the end: nothing can complete them.
        return n
    }
}
