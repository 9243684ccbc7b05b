/// GPT-2's reversible byte ↔ Unicode mapping used by byte-level BPE vocabularies.
///
/// Printable bytes (`!`…`~`, `¡`…`¬`, `®`…`ÿ`) map to themselves; the other 68 bytes map, in
/// order, to U+0100… so that no vocabulary entry holds a space or a control character
/// (`Ġ` is a space, `Ċ` a newline).
enum ByteLevel {
    /// `scalarForByte[b]` is the code point that stands for byte `b` in vocabulary text.
    static let scalarForByte: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 256)
        var next: UInt32 = 256
        for b in 0..<256 {
            if isPrintable(UInt8(b)) {
                table[b] = UInt32(b)
            } else {
                table[b] = next
                next += 1
            }
        }
        return table
    }()

    /// Inverse of `scalarForByte` for code points below 324; -1 where no byte maps there.
    static let byteForScalar: [Int16] = {
        var table = [Int16](repeating: -1, count: 324)
        for (byte, scalar) in scalarForByte.enumerated() { table[Int(scalar)] = Int16(byte) }
        return table
    }()

    static func isPrintable(_ b: UInt8) -> Bool {
        (33...126).contains(b) || (161...172).contains(b) || (174...255).contains(b)
    }

    /// Appends the UTF-8 of the vocabulary text that stands for `byte`.
    static func appendEncoded(_ byte: UInt8, to out: inout [UInt8]) {
        let v = scalarForByte[Int(byte)]
        if v < 0x80 {
            out.append(UInt8(v))
        } else {  // every mapped code point is below U+0800: two bytes
            out.append(0xC0 | UInt8(v >> 6))
            out.append(0x80 | UInt8(v & 0x3F))
        }
    }

    /// Appends the raw bytes of vocabulary text written in the byte-level alphabet. A code
    /// point outside the alphabet (a well-formed vocabulary holds none) is kept as its UTF-8.
    static func appendDecoded(_ text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard let base = text.baseAddress else { return }
        var i = 0
        while i < text.count {
            let (v, n) = UTF8Scalar.decode(base, at: i, end: text.count)
            if Int(v) < byteForScalar.count, byteForScalar[Int(v)] >= 0 {
                out.append(UInt8(byteForScalar[Int(v)]))
            } else {
                out.append(contentsOf: text[i..<i + n])
            }
            i += n
        }
    }
}
