/// How replies are compared with each other and with the conversation: ignoring case,
/// punctuation and spacing.
package enum TextMatching {
    /// Lowercased letters, digits and single spaces: "Sounds good!!" and "sounds  good" agree.
    package static func normalized(_ text: String) -> String {
        let kept = text.lowercased().map { $0.isLetter || $0.isNumber ? $0 : " " }
        return String(kept).split(separator: " ").joined(separator: " ")
    }

    /// The key two texts share when they say the same: the normalized text, or the trimmed text
    /// itself when it has no letters or digits ("👍", "?").
    package static func key(_ text: String) -> String {
        let normal = normalized(text)
        return normal.isEmpty ? trimmed(text) : normal
    }

    /// `text` without surrounding whitespace and without quotes wrapped around all of it.
    package static func trimmed(_ text: String) -> String {
        var result = Substring(text).trimmingWhitespace()
        let pairs: [(Character, Character)] = [("\"", "\""), ("'", "'"), ("“", "”"), ("«", "»"), ("‘", "’")]
        while result.count >= 2, let first = result.first, let last = result.last,
            pairs.contains(where: { $0.0 == first && $0.1 == last })
        {
            result = result.dropFirst().dropLast().trimmingWhitespace()
        }
        return String(result)
    }

    /// A leading "Name:" label and the text after it, when `text` starts with one: one to three
    /// words of letters before a colon. Times ("3:30 works") have digits and are never labels.
    package static func splitLabel(_ text: String) -> (label: String, rest: String)? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let label = text[..<colon]
        let words = label.split(separator: " ")
        guard (1...3).contains(words.count), label.first?.isLetter == true,
            label.allSatisfy({ $0.isLetter || $0 == " " || $0 == "." || $0 == "-" || $0 == "'" })
        else { return nil }
        return (String(label), String(text[text.index(after: colon)...]))
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        var result = self
        while let first = result.first, first.isWhitespace { result = result.dropFirst() }
        while let last = result.last, last.isWhitespace { result = result.dropLast() }
        return result
    }
}
