/// UTF-8 decoding over a raw buffer. The encoder reads Swift strings, whose UTF-8 is always
/// well formed; `end` guards against truncated sequences anyway.
enum UTF8Scalar {
    /// The code point starting at `i` and its length in bytes.
    @inline(__always)
    static func decode(_ p: UnsafePointer<UInt8>, at i: Int, end: Int) -> (UInt32, Int) {
        let b0 = p[i]
        if b0 < 0x80 { return (UInt32(b0), 1) }
        if b0 < 0xE0, i + 1 < end {
            return ((UInt32(b0 & 0x1F) << 6) | UInt32(p[i + 1] & 0x3F), 2)
        }
        if b0 < 0xF0, i + 2 < end {
            return ((UInt32(b0 & 0x0F) << 12) | (UInt32(p[i + 1] & 0x3F) << 6) | UInt32(p[i + 2] & 0x3F), 3)
        }
        if i + 3 < end {
            let v =
                (UInt32(b0 & 0x07) << 18) | (UInt32(p[i + 1] & 0x3F) << 12) | (UInt32(p[i + 2] & 0x3F) << 6)
                | UInt32(p[i + 3] & 0x3F)
            return (v, 4)
        }
        return (0xFFFD, 1)
    }
}

/// The character classes the pre-tokenizer regexes use: `\p{L}`, `\p{N}`, `\s`, and the rest.
enum CharClass {
    static let other: UInt8 = 0
    static let letter: UInt8 = 1
    static let number: UInt8 = 2
    static let whitespace: UInt8 = 3

    /// Classes of U+0000…U+FFFF, computed once (a few ms) from the Unicode tables in the
    /// standard library; code points above use `classify` directly.
    static let basicPlane: [UInt8] = (0..<0x10000).map { v in
        Unicode.Scalar(UInt32(v)).map(classify) ?? other
    }

    /// Classes of the emoji and pictograph blocks (U+1F000…U+1FBFF), the most common code
    /// points above the basic plane.
    static let pictographs: [UInt8] = (0x1F000..<0x1FC00).map { classify(UInt32($0)) }

    /// Class of a code point above U+FFFF.
    @inline(__always)
    static func classifySupplementary(_ v: UInt32) -> UInt8 {
        if v >= 0x1F000 && v < 0x1FC00 { return pictographs[Int(v - 0x1F000)] }
        return classify(v)
    }

    /// `\s` is White_Space; `\p{L}` is Lu/Ll/Lt/Lm/Lo; `\p{N}` is Nd/Nl/No.
    static func classify(_ s: Unicode.Scalar) -> UInt8 {
        let p = s.properties
        if p.isWhitespace { return whitespace }
        switch p.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter:
            return letter
        case .decimalNumber, .letterNumber, .otherNumber:
            return number
        default:
            return other
        }
    }

    static func classify(_ v: UInt32) -> UInt8 {
        Unicode.Scalar(v).map(classify) ?? other
    }
}
