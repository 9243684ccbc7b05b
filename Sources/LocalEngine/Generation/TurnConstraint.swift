import FoundationModels
import Guidance
import Inference
import Tokenizers

/// Steers one model turn that may call tools: the model either answers (free text, or JSON
/// under the response grammar) or calls tools, whose JSON is then generated under the grammar
/// of the tools' names and arguments.
///
/// A call comes in one of two shapes:
/// - tagged, in the model's own format: `<tool_call>`, the call's JSON, `</tool_call>` (forced
///   once the JSON is complete); several calls may follow one another;
/// - bare: the call's JSON as the whole answer, as small models often write it. A free-text
///   answer is followed by a matcher of the call grammar; once it has written
///   `{"name": "` it is held to the grammar, and the turn ends with the call. A structured
///   answer is generated under the union of the response and call grammars.
///
/// ``TurnCollector`` sorts the generated tokens by the same rules. A text answer that opens a
/// tagged call after it has started ends there: the text is the response.
// @unchecked Sendable: one generation owns the constraint and drives it from its inference
// session's serial queue.
package final class TurnConstraint: TokenConstraint, @unchecked Sendable {
    package enum Phase {
        /// Nothing but whitespace generated yet.
        case start
        /// A free-text answer; `bareCall` follows it while it could still be a bare call.
        case text(bareCall: GrammarConstraint?)
        /// A structured answer (or a bare call) under the union grammar.
        case structured(GrammarConstraint)
        /// Inside a call.
        case call(GrammarConstraint, tagged: Bool)
        /// After a tagged call's JSON: these tokens close it.
        case closing([Int])
        /// After a closed call: another call (after a separator) or the end.
        case afterCall
        /// After the separator: must open another call.
        case separated
        /// The turn is over.
        case done
    }

    package private(set) var phase: Phase = .start
    /// Tagged calls opened so far.
    package private(set) var callCount = 0

    private let format: ToolCallFormat
    /// The grammar of an answer: the response's or a bare call's (nil for free text).
    private let answerGrammar: Grammar?
    private let callGrammar: Grammar
    private let index: VocabularyIndex
    private let tokenizer: Tokenizer
    /// Tokens the turn may still generate.
    private var budget: Int
    private let endTokens: [Int]
    /// The answer grammar at its start, for the first token's mask.
    private var answerStart: GrammarConstraint?
    /// Whether the turn must be a tagged call (`ToolCallingMode.required`).
    private let requiresCall: Bool

    /// - Parameters:
    ///   - answerGrammar: for a structured response, the union of the response and call
    ///     grammars; nil for free text.
    ///   - requiresCall: whether the turn must open with a tagged call.
    package init(
        format: ToolCallFormat, answerGrammar: Grammar?, callGrammar: Grammar, index: VocabularyIndex,
        tokenizer: Tokenizer,
        budget: Int, requiresCall: Bool = false
    ) {
        self.requiresCall = requiresCall
        self.format = format
        self.answerGrammar = answerGrammar
        self.callGrammar = callGrammar
        self.index = index
        self.tokenizer = tokenizer
        self.budget = budget
        endTokens = tokenizer.endOfGenerationTokenIDs.sorted()
        answerStart = answerGrammar.map {
            GrammarConstraint(grammar: $0, index: index, tokenizer: tokenizer, budget: budget)
        }
    }

    package var isComplete: Bool {
        switch phase {
        case .done: true
        case .structured(let grammar): grammar.isComplete
        default: false
        }
    }

    package func forcedTokens() -> [Int] {
        switch phase {
        case .structured(let grammar), .call(let grammar, _): grammar.forcedTokens()
        case .closing(let tokens): tokens
        case .start where requiresCall: [format.openToken]
        case .afterCall where callCount >= ToolCallFormat.maximumCallsPerTurn: Array(endTokens.prefix(1))
        default: []
        }
    }

    package func restrict(_ mask: inout TokenMask) -> Bool {
        switch phase {
        case .start:
            // The answer's first token or a tagged call; without an answer grammar, anything goes.
            guard let answerStart else { return false }
            _ = answerStart.restrict(&mask)
            allow(format.openToken, in: &mask)
            return true
        case .text, .done, .closing:
            return false
        case .structured(let grammar), .call(let grammar, _):
            return grammar.restrict(&mask)
        case .afterCall:
            mask.removeAll()
            for token in endTokens { allow(token, in: &mask) }
            if budget >= 2 { allow(format.separatorToken, in: &mask) }
            return true
        case .separated:
            mask.removeAll()
            for token in endTokens { allow(token, in: &mask) }
            if budget >= minimumCallTokens { allow(format.openToken, in: &mask) }
            return true
        }
    }

    package var refinesRefusals: Bool { true }

    package func refine(_ mask: inout TokenMask, refusing preferred: Int) {
        switch phase {
        case .structured(let grammar), .call(let grammar, _): grammar.refine(&mask, refusing: preferred)
        default: break
        }
    }

    package func accept(_ token: Int) throws {
        defer { budget -= 1 }
        if endTokens.contains(token) {
            if case .structured(let grammar) = phase { try grammar.accept(token) }
            phase = .done
            return
        }
        switch phase {
        case .start:
            if token == format.openToken {
                openCall()
            } else if let answerStart {
                try answerStart.accept(token)
                phase = .structured(answerStart)
            } else {
                let text = ToolCallFormat.droppingLeadingWhitespace(tokenizer.tokenBytes(token))
                if !text.isEmpty { follow(text, with: bareCallMatcher(budget: budget)) }
            }
        case .text(let bareCall):
            if token == format.openToken {
                phase = .done
            } else if let bareCall {
                follow(tokenizer.tokenBytes(token), with: bareCall)
            }
        case .structured(let grammar):
            try grammar.accept(token)
        case .call(let grammar, let tagged):
            try grammar.accept(token)
            if grammar.isComplete { phase = tagged ? .closing(format.trailingTokens + [format.closeToken]) : .done }
        case .closing(var tokens):
            guard token == tokens.first else {
                throw GuidanceError(.rejected, "token \(token) does not close the tool call")
            }
            tokens.removeFirst()
            phase = tokens.isEmpty ? .afterCall : .closing(tokens)
        case .afterCall:
            guard token == format.separatorToken else {
                throw GuidanceError(.rejected, "token \(token) cannot follow a tool call")
            }
            phase = .separated
        case .separated:
            guard token == format.openToken else {
                throw GuidanceError(.rejected, "token \(token) cannot follow a tool call separator")
            }
            openCall()
        case .done:
            break
        }
    }

    /// Feeds free text to the bare-call matcher: plain text once the text cannot be a call; the
    /// call's phase once the text has committed to one.
    private func follow(_ bytes: [UInt8], with bareCall: GrammarConstraint) {
        guard (try? bareCall.follow(bytes: bytes)) != nil else {
            phase = .text(bareCall: nil)
            return
        }
        let committed = bareCall.matcher.acceptedByteCount >= ToolCallFormat.bareCallCommitLength
        phase = committed ? .call(bareCall, tagged: false) : .text(bareCall: bareCall)
    }

    private func bareCallMatcher(budget: Int) -> GrammarConstraint {
        GrammarConstraint(
            grammar: callGrammar, index: index, tokenizer: tokenizer, budget: budget, allowsEndToken: false)
    }

    private func openCall() {
        callCount += 1
        // The call's budget leaves room for the closing tokens and the end.
        let closing = format.trailingTokens.count + 2
        phase = .call(
            GrammarConstraint(
                grammar: callGrammar, index: index, tokenizer: tokenizer, prefix: format.leadingText,
                budget: max(budget - 1 - closing, 0), allowsEndToken: false),
            tagged: true)
    }

    /// Tokens the shortest call takes: tags, the text around the JSON, and its shortest form.
    private var minimumCallTokens: Int {
        let probe = TokenMatcher(grammar: callGrammar, index: index)
        return 4 + format.trailingTokens.count + probe.minimumBytesToComplete
    }

    private func allow(_ token: Int, in mask: inout TokenMask) {
        if token >= 0 && token < mask.vocabularySize { mask.insert(token) }
    }
}
