import Foundation
import FoundationModels
import ServerKit
import TestSupport
import Testing

@testable import AssistantServer
@testable import ChatStore

/// An assistant turn's decisions and the engine's admission of turns, without a model, tasks,
/// clock or store: each step is a call and its answer.
@Suite(.onTestThreads) struct AssistantTurnTests {
    let start = Date(timeIntervalSince1970: 1_000_000)

    func turn(_ kind: AssistantTurnView.Kind = .answer) -> AssistantTurn {
        AssistantTurn(id: "t1", kind: kind, frameInterval: 0.05)
    }

    func usage(input: Int, cached: Int, output: Int) -> LanguageModelSession.Usage {
        LanguageModelSession.Usage(
            input: .init(totalTokenCount: input, cachedTokenCount: cached),
            output: .init(totalTokenCount: output, reasoningTokenCount: 0))
    }

    func message(_ text: String) -> AssistantMessage {
        AssistantMessage(
            id: "m1", conversationID: "c1", role: .assistant, text: text, inputTokens: 9, outputTokens: 3,
            model: "m", stopped: false, createdAt: Timestamp(milliseconds: 0), images: [])
    }

    @Test func framesAreSentAtMostOncePerInterval() {
        var turn = turn()
        let first = turn.progress("Hel", tokens: 1, at: start)
        #expect(first?.text == "Hel")
        #expect(first?.status == .streaming)
        let early = turn.progress("Hello", tokens: 2, at: start.addingTimeInterval(0.01))
        #expect(early == nil)
        let due = turn.progress("Hello **you**", tokens: 4, at: start.addingTimeInterval(0.06))
        #expect(due?.text == "Hello **you**")
        #expect(due?.output_tokens == 4)
        #expect(due?.html.contains("<strong>you</strong>") == true)
    }

    @Test func aFinishedTurnStoresTheTextWithItsUsage() throws {
        var turn = turn()
        _ = turn.progress("Hi", tokens: 1, at: start)
        let ended = turn.end(.finished("Hi there", usage(input: 40, cached: 30, output: 2)))
        let outcome = try #require(ended)
        #expect(outcome == .init(text: "Hi there", inputTokens: 40, outputTokens: 2, stopped: false))
        #expect(turn.phase == .storing)
        turn.stored(message("Hi there"))
        #expect(turn.phase == .over)
        #expect(turn.view.status == .done)
        #expect(turn.view.input_tokens == 40)
        #expect(turn.view.cached_tokens == 30)
        #expect(turn.view.message?.id == "m1")
        #expect(turn.view.html.contains("Hi there"))
    }

    @Test func aStoppedTurnKeepsWhatWasWritten() throws {
        var turn = turn()
        _ = turn.progress("Half an", tokens: 2, at: start)
        _ = turn.progress("Half an answer", tokens: 3, at: start.addingTimeInterval(0.01))  // no frame, still kept
        let ended = turn.end(.cancelled)
        let outcome = try #require(ended)
        #expect(outcome == .init(text: "Half an answer", inputTokens: nil, outputTokens: 3, stopped: true))
        turn.stored(message("Half an answer"))
        #expect(turn.view.status == .stopped)
        #expect(turn.view.text == "Half an answer")
    }

    @Test func aFailedTurnStoresNothingAndSaysWhy() {
        var turn = turn()
        _ = turn.progress("Part", tokens: 1, at: start)
        let error = LanguageModelSession.GenerationError.exceededContextWindowSize(.init(debugDescription: "full"))
        let ended = turn.end(.failed(error))
        #expect(ended == nil)
        #expect(turn.phase == .over)
        #expect(turn.view.status == .failed)
        #expect(turn.view.error_code == "context_full")
        #expect(turn.view.text == "Part")
        turn.stored(message("Part"))  // out of order: nothing changes
        #expect(turn.view.message == nil)
        #expect(turn.view.status == .failed)
    }

    @Test func aTurnWhoseConversationWentAwayFails() {
        var turn = turn()
        let ended = turn.end(.finished("Answer", nil))
        #expect(ended != nil)
        turn.storeFailed()
        #expect(turn.view.status == .failed)
        #expect(turn.view.error_code == "not_found")
        #expect(turn.view.text == "Answer")
    }

    @Test func stepsAfterTheEndChangeNothing() {
        var turn = turn(.summary)
        let ended = turn.end(.finished("Summary.", nil))
        #expect(ended != nil)
        let late = turn.progress("late", tokens: 9, at: start.addingTimeInterval(1))
        #expect(late == nil)
        let again = turn.end(.cancelled)
        #expect(again == nil)
        turn.stored(nil)
        #expect(turn.view.status == .done)
        #expect(turn.view.kind == .summary)
        #expect(turn.view.text == "Summary.")
        #expect(turn.view.message == nil)
    }

    // MARK: - Admission

    @Test func oneTurnPerConversation() throws {
        var book = TurnBook<Int>(maxPerOwner: 2, retrySeconds: 2)
        try book.admit("a", owner: "u1", in: "c1") { 1 }
        var started = false
        let error = #expect(throws: APIError.self) {
            try book.admit("b", owner: "u2", in: "c1") {
                started = true
                return 2
            }
        }
        #expect(error?.status == 409)
        #expect(!started)
        #expect(book.entry(for: "c1")?.id == "a")
    }

    @Test func aUserHasAtMostTheirShareOfTurns() throws {
        var book = TurnBook<Int>(maxPerOwner: 2, retrySeconds: 3)
        try book.admit("a", owner: "u1", in: "c1") { 1 }
        try book.admit("b", owner: "u1", in: "c2") { 2 }
        let error = #expect(throws: APIError.self) { try book.admit("c", owner: "u1", in: "c3") { 3 } }
        #expect(error?.status == 429)
        #expect(error?.retryAfter == 3)
        #expect(book.refusal(for: "u1") != nil)
        try book.admit("d", owner: "u2", in: "c3") { 4 }  // another user is not held up
        book.remove("a", in: "c1")
        #expect(book.refusal(for: "u1") == nil)
        try book.admit("e", owner: "u1", in: "c1") { 5 }
    }

    @Test func aFinishedTurnDoesNotRemoveTheNextOne() throws {
        var book = TurnBook<Int>(maxPerOwner: 2, retrySeconds: 2)
        try book.admit("a", owner: "u1", in: "c1") { 1 }
        book.remove("a", in: "c1")
        try book.admit("b", owner: "u1", in: "c1") { 2 }
        book.remove("a", in: "c1")  // the first turn's late removal
        #expect(book.entry(for: "c1")?.id == "b")
        book.remove("b", in: "c1")
        #expect(book.isEmpty)
    }
}
