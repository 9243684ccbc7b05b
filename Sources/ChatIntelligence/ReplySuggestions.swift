import FoundationModels

/// Three reply suggestions, as the model generates them.
///
/// The schema does the enforcing: exactly three replies, each one sentence of one to eight words
/// separated by single spaces. Sentence-ending punctuation (`. ! ? …`) may come only at the very
/// end, so a reply stops at its first full stop; a comma only ends a word, so words cannot be
/// glued together with one. Chinese, Japanese and Korean characters are left out: small
/// multilingual models drift into them mid-reply (conversations in those languages use
/// ``CJKReplySuggestions``). No line breaks, quotes or backslashes.
///
/// The descriptions ask for less than the bound allows (two to five words), so the model closes
/// each reply on its own before the bound would cut it.
///
/// The `tone` comes first: the model writes the register the prompt asks for (`"formal"`), then
/// three replies in it, so the toggle beside the chips steers the replies through the schema as
/// well as the prompt.
@Generable(description: "Reply suggestions: three different short chat messages the user could send next")
public struct ReplySuggestions: Sendable, Equatable {
    @Guide(
        description: "The tone the prompt asks for: casual (relaxed, friendly) or formal (polite, complete sentences)")
    public var tone: ReplyTone

    @Guide(
        description: "Three different replies written by the user, each one short sentence of 2 to 5 words",
        .count(3),
        .element(
            .pattern(
                /^[^\s"\\.,;!?…\u{2E80}-\u{9FFF}\u{AC00}-\u{D7AF}\u{FF00}-\u{FFEF}]{1,20},?( [^\s"\\.,;!?…\u{2E80}-\u{9FFF}\u{AC00}-\u{D7AF}\u{FF00}-\u{FFEF}]{1,20},?){0,7}( ?(\.|[!?]{1,3}))?$/
            )))
    public var replies: [String]

    public init(tone: ReplyTone = .casual, replies: [String]) {
        self.tone = tone
        self.replies = replies
    }
}

/// Three reply suggestions for a conversation in Chinese, Japanese or Korean, where words are not
/// separated by spaces: each reply is at most eight space-separated runs of up to 24 characters
/// (so at most 192 characters), on one line, without quotes or backslashes.
@Generable(description: "Reply suggestions: three different short chat messages the user could send next")
public struct CJKReplySuggestions: Sendable, Equatable {
    @Guide(
        description: "The tone the prompt asks for: casual (relaxed, friendly) or formal (polite, complete sentences)")
    public var tone: ReplyTone

    @Guide(
        description: "Three different replies written by the user, each one short sentence",
        .count(3), .element(.pattern(/^[^\s"\\]{1,24}( [^\s"\\]{1,24}){0,7}$/)))
    public var replies: [String]

    public init(tone: ReplyTone = .casual, replies: [String]) {
        self.tone = tone
        self.replies = replies
    }

    /// Whether `text` has Chinese, Japanese or Korean characters (the ranges ``ReplySuggestions``
    /// leaves out).
    package static func isCJK(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            let value = scalar.value
            return (0x2E80...0x9FFF).contains(value) || (0xAC00...0xD7AF).contains(value)
                || (0xF900...0xFAFF).contains(value) || (0xFF00...0xFFEF).contains(value)
        }
    }
}
