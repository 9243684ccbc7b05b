import Foundation

/// What the PostgreSQL backend does to the store's SQL and to the values it reads back.
enum PostgresText {
    /// `sql` with its `?` placeholders numbered `$1, $2, …` in order and `?N` written `$N`, as
    /// PostgreSQL wants them, and the few spellings only SQLite knows turned into PostgreSQL's:
    /// `LIKE` is `ILIKE` (SQLite's LIKE ignores ASCII case; PostgreSQL's does not) and
    /// `length(CAST(x AS BLOB))`, a text's size in bytes, is `octet_length(x)`. A `?` in quoted
    /// text ('…', "…") or a comment is not a placeholder.
    static func translate(_ sql: String) -> String {
        var output = ""
        var next = 1
        let characters = Array(sql.unicodeScalars)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "'", "\"":
                // Copy a quoted run, with doubled quotes inside it, unchanged.
                output.unicodeScalars.append(character)
                index += 1
                while index < characters.count {
                    output.unicodeScalars.append(characters[index])
                    if characters[index] == character {
                        if index + 1 < characters.count && characters[index + 1] == character {
                            output.unicodeScalars.append(characters[index + 1])
                            index += 2
                            continue
                        }
                        break
                    }
                    index += 1
                }
                index += 1
            case "-" where index + 1 < characters.count && characters[index + 1] == "-":
                while index < characters.count && characters[index] != "\n" {
                    output.unicodeScalars.append(characters[index])
                    index += 1
                }
            case "?":
                var digits = ""
                index += 1
                while index < characters.count, ("0"..."9").contains(characters[index]) {
                    digits.unicodeScalars.append(characters[index])
                    index += 1
                }
                if digits.isEmpty {
                    output += "$\(next)"
                    next += 1
                } else {
                    output += "$" + digits
                }
            default:
                output.unicodeScalars.append(character)
                index += 1
            }
        }
        return rewriteSpellings(output)
    }

    /// SQLite's spellings outside quoted text, rewritten (see ``translate(_:)``).
    private static func rewriteSpellings(_ sql: String) -> String {
        var text = sql.replacingOccurrences(of: " LIKE ", with: " ILIKE ")
        while let start = text.range(of: "length(CAST(") {
            guard let end = text[start.upperBound...].range(of: " AS BLOB))") else { break }
            let operand = text[start.upperBound..<end.lowerBound]
            text.replaceSubrange(start.lowerBound..<end.upperBound, with: "octet_length(\(operand))")
        }
        return text
    }

    /// The bytes of a `bytea` value in PostgreSQL's text output: `\x` and two hex digits a
    /// byte (the default `bytea_output`).
    static func bytea(_ value: UnsafePointer<CChar>, count: Int) -> [UInt8] {
        guard count >= 2, value[0] == 0x5C, value[1] == 0x78 else { return [] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((count - 2) / 2)
        var index = 2
        while index + 1 < count {
            guard let high = hexDigit(value[index]), let low = hexDigit(value[index + 1]) else { return bytes }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func hexDigit(_ character: CChar) -> UInt8? {
        switch UInt8(bitPattern: character) {
        case 0x30...0x39: UInt8(bitPattern: character) - 0x30
        case 0x61...0x66: UInt8(bitPattern: character) - 0x61 + 10
        case 0x41...0x46: UInt8(bitPattern: character) - 0x41 + 10
        default: nil
        }
    }
}
