/// URLs in text with their user info (`http://user:password@host`) taken out: what the store
/// keeps, and the server shows, of a model's name never holds a password.
package enum CredentialRedaction {
    /// `text` with every `scheme://user:password@` turned into `scheme://`.
    package static func redacted(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let separator = rest.range(of: "://") {
            result += rest[..<separator.upperBound]
            rest = rest[separator.upperBound...]
            // User info ends at the first "@" before the authority's end ("/", "?", "#", space).
            let authorityEnd = rest.firstIndex { "/?# \t\n".contains($0) } ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") {
                rest = rest[rest.index(after: at)...]
            }
        }
        return result + rest
    }
}
