import Foundation

/// What a display name may hold, so that one user cannot pass for another.
///
/// A name is refused when it holds
/// - a control character, or an invisible or formatting one (general category Cf: zero-width
///   space, joiners and non-joiners, the bidirectional controls, soft hyphen, word joiner,
///   byte-order mark, tags; and the variation selectors, the combining grapheme joiner and the
///   Hangul fillers, which show nothing either), but for the joiner between two emoji and the
///   selector after one, which make a single emoji (👩‍💻, ❤️);
/// - whitespace other than single plain spaces (no-break and other wide spaces, two in a row);
/// - a compatibility character that NFKC folds into another (fullwidth `Ａ`, mathematical `𝐀`,
///   ligatures such as `ﬁ`): each has a plain twin that looks the same;
/// - a word (a run of letters, marks and digits) whose letters come from more than one script,
///   Han with Hiragana, Katakana, Bopomofo or Hangul (and any of those with Latin) excepted, as
///   Japanese, Chinese and Korean are written: `Аlice` with a Cyrillic `А` is refused, a name
///   wholly in Cyrillic is not.
///
/// Two names whose ``skeleton(of:)`` is the same (case, and the Cyrillic and Greek letters that
/// look like Latin ones, folded away) belong to one user at most: `Вов`, all Cyrillic, cannot
/// be taken beside `Bob`.
enum DisplayNameRules {
    /// Why `name` (already trimmed) is refused, or nil.
    static func problem(in name: String) -> String? {
        var previousWasSpace = false
        let scalars = Array(name.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            let code = "U+" + String(scalar.value, radix: 16, uppercase: true)
            if isEmojiJoiner(scalars, at: index) { continue }
            if scalar.properties.generalCategory == .control { return "contains control characters" }
            if ChatStore.isBidiControl(scalar) {
                return
                    "contains the bidirectional control character \(code), which can make a name read as another"
            }
            if isInvisible(scalar) {
                return "contains the invisible character \(code), which can make a name look like another"
            }
            if scalar.properties.isWhitespace {
                guard scalar == " " else {
                    return "contains the space character \(code); use plain spaces"
                }
                if previousWasSpace { return "contains two spaces in a row" }
                previousWasSpace = true
            } else {
                previousWasSpace = false
            }
        }
        if name != name.precomposedStringWithCompatibilityMapping,
            let odd = name.first(where: { String($0) != String($0).precomposedStringWithCompatibilityMapping })
        {
            return
                "contains '\(odd)', a variant of another character (fullwidth, mathematical, a ligature); write it plainly"
        }
        for word in words(of: name) {
            let scripts = Set(word.unicodeScalars.compactMap(Script.init))
            if !Script.mayMix(scripts) {
                let names = scripts.map(\.rawValue).sorted().joined(separator: " and ")
                return
                    "mixes \(names) letters in the word '\(word)', which makes it look like another name; write each word in one script"
            }
        }
        return nil
    }

    /// The name as it looks: lowercased, compatibility forms folded, and the Cyrillic and Greek
    /// letters (and digits) that look like Latin letters replaced by them.
    static func skeleton(of name: String) -> String {
        let folded = name.precomposedStringWithCompatibilityMapping
        var result = String.UnicodeScalarView()
        for scalar in folded.unicodeScalars {
            // Capital I and small l look alike in most fonts; so do 0 and O, 1 and l.
            let mapped: Unicode.Scalar =
                switch scalar {
                case "I", "1", "|": "l"
                case "0": "o"
                default: lookalikes[scalar] ?? scalar
                }
            for lower in String(mapped).lowercased().unicodeScalars { result.append(lookalikes[lower] ?? lower) }
        }
        return String(result)
    }

    /// Cyrillic and Greek letters that look like a Latin one: small letters, and the capitals
    /// (mapped before the name is lowercased) that look like a Latin capital.
    static let lookalikes: [Unicode.Scalar: Unicode.Scalar] = {
        let pairs: [(String, String)] = [
            // Cyrillic
            ("а", "a"), ("в", "b"), ("е", "e"), ("һ", "h"), ("і", "i"), ("ј", "j"), ("к", "k"), ("м", "m"),
            ("н", "h"), ("о", "o"), ("р", "p"), ("с", "c"), ("т", "t"), ("у", "y"), ("х", "x"), ("ѕ", "s"),
            ("ԁ", "d"), ("ԛ", "q"), ("ԝ", "w"), ("ӏ", "l"), ("ь", "b"), ("ѵ", "v"), ("ɡ", "g"),
            // Greek
            ("α", "a"), ("β", "b"), ("ε", "e"), ("η", "n"), ("ι", "i"), ("κ", "k"), ("ν", "v"), ("ο", "o"),
            ("ρ", "p"), ("τ", "t"), ("υ", "u"), ("χ", "x"), ("ζ", "z"), ("μ", "u"),
            // Capitals that look like a Latin capital (whose small letters do not)
            ("А", "a"), ("В", "b"), ("Е", "e"), ("К", "k"), ("М", "m"), ("Н", "h"), ("О", "o"), ("Р", "p"),
            ("С", "c"), ("Т", "t"), ("У", "y"), ("Х", "x"), ("Ѕ", "s"), ("І", "l"), ("Ј", "j"), ("Α", "a"),
            ("Β", "b"), ("Ε", "e"), ("Ζ", "z"), ("Η", "h"), ("Ι", "l"), ("Κ", "k"), ("Μ", "m"), ("Ν", "n"),
            ("Ο", "o"), ("Ρ", "p"), ("Τ", "t"), ("Υ", "y"), ("Χ", "x"),
        ]
        var table: [Unicode.Scalar: Unicode.Scalar] = [:]
        for (letter, latin) in pairs {
            table[letter.unicodeScalars.first!] = latin.unicodeScalars.first!
        }
        return table
    }()

    /// Whether the scalar at `index` is part of an emoji sequence: a zero-width joiner between
    /// two emoji (👩‍💻), or the variation selector that asks for an emoji's picture (❤️).
    static func isEmojiJoiner(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        func isEmoji(_ position: Int) -> Bool {
            scalars.indices.contains(position) && scalars[position].properties.isEmoji && scalars[position].value > 0x7F
        }
        switch scalars[index].value {
        case 0x200D: return isEmoji(index - 1) && isEmoji(index + 1)
        case 0xFE0F: return isEmoji(index - 1)
        default: return false
        }
    }

    /// Characters that show nothing (or nothing of their own) beyond the Cf category.
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.generalCategory == .format { return true }
        switch scalar.value {
        case 0x034F,  // combining grapheme joiner
            0x115F, 0x1160, 0x3164, 0xFFA0,  // Hangul fillers
            0x180B...0x180F,  // Mongolian variation selectors and vowel separator
            0xFE00...0xFE0F, 0xE0100...0xE01EF,  // variation selectors
            0x2800:  // braille blank
            return true
        default:
            return false
        }
    }

    /// Runs of letters, marks and digits.
    static func words(of name: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in name {
            if character.isLetter || character.isNumber
                || character.unicodeScalars.allSatisfy({ $0.properties.generalCategory.isMark })
            {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}

/// The writing system of a letter, for the scripts whose letters are mistaken for one another
/// (and those that may share a word). Letters of other scripts are `other`; marks, digits and
/// punctuation have none.
enum Script: String {
    case latin = "Latin"
    case greek = "Greek"
    case cyrillic = "Cyrillic"
    case armenian = "Armenian"
    case georgian = "Georgian"
    case cherokee = "Cherokee"
    case coptic = "Coptic"
    case hebrew = "Hebrew"
    case arabic = "Arabic"
    case han = "Han"
    case hiragana = "Hiragana"
    case katakana = "Katakana"
    case bopomofo = "Bopomofo"
    case hangul = "Hangul"
    case other = "other-script"

    init?(_ scalar: Unicode.Scalar) {
        guard scalar.properties.isAlphabetic, !scalar.properties.generalCategory.isMark else { return nil }
        switch scalar.value {
        case 0x0041...0x005A, 0x0061...0x007A, 0x00AA, 0x00BA, 0x00C0...0x024F, 0x0250...0x02AF, 0x1D00...0x1DBF,
            0x1E00...0x1EFF, 0x2C60...0x2C7F, 0xA720...0xA7FF, 0xAB30...0xAB6F, 0xFF21...0xFF3A, 0xFF41...0xFF5A:
            self = .latin
        case 0x0370...0x03E1, 0x03F0...0x03FF, 0x1F00...0x1FFF:
            self = .greek
        case 0x03E2...0x03EF, 0x2C80...0x2CFF:
            self = .coptic
        case 0x0400...0x052F, 0x1C80...0x1C8F, 0x2DE0...0x2DFF, 0xA640...0xA69F:
            self = .cyrillic
        case 0x0530...0x058F, 0xFB13...0xFB17:
            self = .armenian
        case 0x10A0...0x10FF, 0x1C90...0x1CBF, 0x2D00...0x2D2F:
            self = .georgian
        case 0x13A0...0x13FF, 0xAB70...0xABBF:
            self = .cherokee
        case 0x0590...0x05FF, 0xFB1D...0xFB4F:
            self = .hebrew
        case 0x0600...0x06FF, 0x0750...0x077F, 0x0870...0x08FF, 0xFB50...0xFDFF, 0xFE70...0xFEFF:
            self = .arabic
        case 0x2E80...0x2FDF, 0x3005, 0x3007, 0x3021...0x3029, 0x3038...0x303B, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xF900...0xFAFF, 0x20000...0x3FFFF:
            self = .han
        case 0x3040...0x309F:
            self = .hiragana
        case 0x30A0...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9F:
            self = .katakana
        case 0x3100...0x312F, 0x31A0...0x31BF:
            self = .bopomofo
        case 0x1100...0x11FF, 0x3130...0x318F, 0xA960...0xA97F, 0xAC00...0xD7FF:
            self = .hangul
        default:
            self = .other
        }
    }

    /// Whether letters of `scripts` may share a word: one script, or the way Japanese, Chinese
    /// and Korean mix theirs (with Latin beside them, as in `Tシャツ`).
    static func mayMix(_ scripts: Set<Script>) -> Bool {
        if scripts.count <= 1 { return true }
        let eastAsian: [Set<Script>] = [
            [.latin, .han, .hiragana, .katakana], [.latin, .han, .bopomofo], [.latin, .han, .hangul],
        ]
        return eastAsian.contains { scripts.isSubset(of: $0) }
    }
}

extension Unicode.GeneralCategory {
    var isMark: Bool { self == .nonspacingMark || self == .spacingMark || self == .enclosingMark }
}
