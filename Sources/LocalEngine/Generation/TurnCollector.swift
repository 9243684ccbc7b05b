import FoundationModels
import Guidance
import Tokenizers

/// Sorts the tokens of one generated turn into response text and tool calls, by the rules of
/// ``TurnConstraint``, and decides what text may be streamed.
///
/// The text of each token is the generation's own (its `GenerationEvent.token` text, made by the
/// one streaming detokenizer of the generation loop): tokens are turned into text once.
///
/// Streamed text is never taken back, so when the model may call tools, text is held back while
/// the turn could still be a call: leading whitespace, and an answer that so far reads as the
/// start of a bare call's JSON. A turn that calls tools has no response text.
package struct TurnCollector {
    /// How calls look, and the grammar of one call's JSON; nil when no tools are offered.
    private let calling: (format: ToolCallFormat, grammar: Grammar, index: VocabularyIndex)?
    private let tokenizer: Tokenizer
    /// Response text streamed so far.
    package private(set) var text = ""
    /// Text not streamed yet.
    private var held = ""
    /// Whether the answer has shown anything but whitespace.
    private var started = false
    /// Follows an answer that could still be a bare call.
    private var bareCall: TokenMatcher?
    /// The answer's tokens, for the text of a bare call.
    private var answerTokens: [Int] = []
    /// Token ids of each finished tagged call, and of the call being generated.
    private var calls: [[Int]] = []
    private var current: [Int]?
    /// A text answer tried to open a call: the rest is ignored.
    private var stopped = false

    package init(tokenizer: Tokenizer, calling: (format: ToolCallFormat, grammar: Grammar, index: VocabularyIndex)?) {
        self.tokenizer = tokenizer
        self.calling = calling
    }

    /// Takes the next generated token and the text it completes (the generation's
    /// `.token(id:text:)`); returns response text to stream (possibly empty).
    package mutating func take(_ token: Int, text piece: String) -> String {
        guard !stopped else { return "" }
        guard let calling else {
            text += piece
            return piece
        }
        if current != nil {
            if token == calling.format.closeToken {
                calls.append(current!)
                current = nil
            } else {
                current!.append(token)
            }
            return ""
        }
        if token == calling.format.openToken {
            if started { stopped = true } else { current = [] }
            return ""
        }
        // Separators between tagged calls.
        if !calls.isEmpty { return "" }

        answerTokens.append(token)
        var bytes = tokenizer.tokenBytes(token)
        if !started {
            bytes = ToolCallFormat.droppingLeadingWhitespace(bytes)
            if !bytes.isEmpty {
                started = true
                bareCall = TokenMatcher(grammar: calling.grammar, index: calling.index)
            }
        }
        if let matcher = bareCall, !bytes.isEmpty, (try? matcher.accept(bytes: bytes)) == nil { bareCall = nil }
        held += piece
        guard started, bareCall == nil else { return "" }
        let piece = held
        held = ""
        text += piece
        return piece
    }

    /// The response text still held back when the turn ended ("" when the turn is a call);
    /// `tail` is the generation's `.text` event, the end of a character cut off by the stop.
    package mutating func finish(tail: String = "") -> String {
        if isCall { return "" }
        let piece = held + tail
        held = ""
        text += piece
        return piece
    }

    /// Whether the turn called tools (tagged, or with a bare call that is complete).
    package var isCall: Bool {
        !calls.isEmpty || current != nil || bareCall.map { $0.canEnd || $0.isComplete } == true
    }

    /// The JSON text of each finished call, and of an unfinished tagged call if the turn was
    /// cut off.
    package var callTexts: (finished: [String], unfinished: String?) {
        if calls.isEmpty, current == nil, isCall { return ([tokenizer.decode(answerTokens)], nil) }
        return (calls.map { tokenizer.decode($0) }, current.map { tokenizer.decode($0) })
    }
}
