/// How strings are written in JSON output: the canonical escapes, and the byte paths that encode a
/// set of characters inside a JSON string.
enum JSONText {
    /// The canonical JSON escape for `scalar`, or nil when it is written as itself.
    static func escape(_ scalar: UInt32) -> [UInt8]? {
        switch scalar {
        case 0x22: return Array(#"\""#.utf8)
        case 0x5C: return Array(#"\\"#.utf8)
        case 0x08: return Array(#"\b"#.utf8)
        case 0x0C: return Array(#"\f"#.utf8)
        case 0x0A: return Array(#"\n"#.utf8)
        case 0x0D: return Array(#"\r"#.utf8)
        case 0x09: return Array(#"\t"#.utf8)
        case 0..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            return Array(#"\u00"#.utf8) + [hex[Int(scalar >> 4)], hex[Int(scalar & 0xF)]]
        default: return nil
        }
    }

    /// The string's content with canonical escapes, without the quotes.
    static func escaped(_ string: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for scalar in string.unicodeScalars {
            if let escape = escape(scalar.value) {
                bytes += escape
            } else {
                bytes += String(scalar).utf8
            }
        }
        return bytes
    }

    /// The string as a JSON string literal, quotes included.
    static func quoted(_ string: String) -> [UInt8] {
        [0x22] + escaped(string) + [0x22]
    }

    /// Scalars a JSON string may hold unescaped.
    static let plainScalars = ScalarSet.all.subtracting(ScalarSet([0...0x1F, 0x22...0x22, 0x5C...0x5C]))
}

extension ByteNFA {
    /// Emits, from `from` to `to`, one character of `set` as it is written inside a JSON string
    /// (canonical escapes for quote, backslash and control characters; raw UTF-8 otherwise).
    /// `suffixes` shares UTF-8 tails between calls that end at the same `to`.
    mutating func scalars(
        _ set: ScalarSet, from: Int32, to: Int32, suffixes: inout [[ClosedRange<UInt8>]: Int32]
    ) throws {
        let plain = set.intersection(JSONText.plainScalars)
        for range in plain.ranges {
            for sequence in ScalarSet.utf8Sequences(range) {
                if sequence.count == 1 {
                    addEdge(from, sequence[0].lowerBound, sequence[0].upperBound, to)
                } else {
                    try self.sequence(sequence, from: from, to: to, suffixes: &suffixes)
                }
            }
        }
        let escaped = set.subtracting(JSONText.plainScalars)
        for range in escaped.ranges {
            for scalar in range {
                guard let escape = JSONText.escape(scalar) else { continue }
                try sequence(escape.map { $0...$0 }, from: from, to: to, suffixes: &suffixes)
            }
        }
    }

    /// Emits a free JSON string (quotes included) from `from`; returns the state after the
    /// closing quote. Any escape JSON allows is accepted (`\uXXXX` except surrogate halves);
    /// `maxLength` counts characters, an escape counting as one.
    mutating func freeString(from: Int32, maxLength: Int?) throws -> Int32 {
        let end = try addState()
        var position = try addState()
        addEdge(from, 0x22, position)
        if let maxLength {
            for _ in 0..<maxLength {
                let next = try addState()
                addEdge(position, 0x22, end)
                try freeCharacter(from: position, to: next)
                position = next
            }
            addEdge(position, 0x22, end)
        } else {
            addEdge(position, 0x22, end)
            try freeCharacter(from: position, to: position)
        }
        return end
    }

    /// One character of a free JSON string: plain UTF-8 or any escape.
    private mutating func freeCharacter(from: Int32, to: Int32) throws {
        var suffixes: [[ClosedRange<UInt8>]: Int32] = [:]
        for range in JSONText.plainScalars.ranges {
            for sequence in ScalarSet.utf8Sequences(range) {
                if sequence.count == 1 {
                    addEdge(from, sequence[0].lowerBound, sequence[0].upperBound, to)
                } else {
                    try self.sequence(sequence, from: from, to: to, suffixes: &suffixes)
                }
            }
        }
        let backslash = try addState()
        addEdge(from, 0x5C, backslash)
        for byte in Array(#""\/bfnrt"#.utf8) { addEdge(backslash, byte, to) }
        // \uXXXX, excluding D800–DFFF (a lone surrogate half is not a character).
        let hex1 = try addState()
        let hex2 = try addState()
        let hex2Low = try addState()  // after a leading d/D: only 0–7 keeps clear of surrogates
        let hex3 = try addState()
        let hex4 = try addState()
        addEdge(backslash, UInt8(ascii: "u"), hex1)
        addHex(hex1, hex2, excluding: [UInt8(ascii: "d"), UInt8(ascii: "D")])
        addEdge(hex1, UInt8(ascii: "d"), hex2Low)
        addEdge(hex1, UInt8(ascii: "D"), hex2Low)
        addHex(hex2, hex3)
        addEdge(hex2Low, UInt8(ascii: "0"), UInt8(ascii: "7"), hex3)
        addHex(hex3, hex4)
        addHex(hex4, to)
    }

    private mutating func addHex(_ from: Int32, _ to: Int32, excluding: [UInt8] = []) {
        for byte in Array("0123456789abcdefABCDEF".utf8) where !excluding.contains(byte) {
            addEdge(from, byte, to)
        }
    }
}
