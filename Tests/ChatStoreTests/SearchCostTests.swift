import ChatStore
import Foundation
import TestSupport
import Testing

/// Issue 27: what a search may cost is bounded: few terms, short ones matched as whole words,
/// the newest candidates only, and a time budget on reading the index.
@Suite struct SearchCostTests {
    @Test(.onTestThreads) func termsAreCountedAndCut() {
        #expect(SearchRanking.terms(of: "a b c d e f g h i").count == SearchRanking.maxTerms)
        let long = String(repeating: "x", count: 200)
        #expect(SearchRanking.terms(of: long) == [String(repeating: "x", count: SearchRanking.maxTermLength)])
    }

    @Test func oneLetterTermsMatchWholeWordsOnly() async throws {
        let temporary = try await TemporaryStore()
        let store = temporary.store
        let cid = try await temporary.seeded()
        _ = try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "apples and a pear"))
        _ = try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "bananas"))
        #expect(try await store.searchMessages("a", for: "bob").map(\.message.text) == ["apples and a pear"])
        #expect(try await store.searchMessages("ba", for: "bob").map(\.message.text) == ["bananas"])
    }

    /// The newest matches are the ones ranked.
    @Test func onlyTheNewestCandidatesAreRanked() async throws {
        var options = ChatStore.Options()
        options.durability = .normal
        let temporary = try await TemporaryStore(options: options)
        let store = temporary.store
        let cid = try await temporary.seeded()
        for index in 0..<(ChatStore.searchCandidates + 100) {
            _ = try await store.sendMessage(NewMessage(cid: cid, author: "alice", text: "plan number \(index)"))
        }
        let hits = try await store.searchMessages("plan", for: "bob", limit: 50)
        #expect(hits.count == 50)
        #expect(hits.first?.message.text == "plan number \(ChatStore.searchCandidates + 99)")
        let oldest = try await store.searchMessages("plan 5", for: "bob", limit: 50)
        // "plan number 5" is older than the newest 500 matches: not among the candidates.
        #expect(!oldest.contains { $0.message.text == "plan number 5" })
    }
}
