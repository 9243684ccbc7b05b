import Foundation

/// Finds control, unknown and user-defined token texts in raw text so they become single
/// tokens. Matching is leftmost, then longest.
struct SpecialTokenMatcher: Sendable {
    private struct Candidate: Sendable {
        let text: [UInt8]
        let id: Int
        /// User-defined tokens (`<tool_call>`) are matched even when specials are not parsed,
        /// as llama.cpp and Hugging Face (for non-special added tokens) do.
        let alwaysMatched: Bool
    }

    /// Candidates by first byte, longest first.
    private let candidates: [[Candidate]]
    /// Whether any candidate / any always-matched candidate starts with the byte.
    private let startsAny: [Bool]
    private let startsAlwaysMatched: [Bool]

    var isEmpty: Bool { !startsAny.contains(true) }

    /// `entries`: (text, id, alwaysMatched) for each token to recognize.
    init(_ entries: [(text: [UInt8], id: Int, alwaysMatched: Bool)]) {
        var candidates = [[Candidate]](repeating: [], count: 256)
        var startsAny = [Bool](repeating: false, count: 256)
        var startsAlwaysMatched = [Bool](repeating: false, count: 256)
        for e in entries where !e.text.isEmpty {
            let b = Int(e.text[0])
            candidates[b].append(Candidate(text: e.text, id: e.id, alwaysMatched: e.alwaysMatched))
            startsAny[b] = true
            if e.alwaysMatched { startsAlwaysMatched[b] = true }
        }
        for b in 0..<256 { candidates[b].sort { $0.text.count > $1.text.count } }
        self.candidates = candidates
        self.startsAny = startsAny
        self.startsAlwaysMatched = startsAlwaysMatched
    }

    /// The first token text in `text[from...]`: its byte range and id.
    func firstMatch(in text: UnsafeBufferPointer<UInt8>, from: Int, parseSpecial: Bool) -> (Range<Int>, Int)? {
        guard let base = text.baseAddress else { return nil }
        let starts = parseSpecial ? startsAny : startsAlwaysMatched
        return starts.withUnsafeBufferPointer { starts in
            var i = from
            while i < text.count {
                let b = Int(base[i])
                if starts[b] {
                    for c in candidates[b] where (parseSpecial || c.alwaysMatched) && c.text.count <= text.count - i {
                        let same = c.text.withUnsafeBufferPointer { memcmp($0.baseAddress!, base + i, $0.count) == 0 }
                        if same { return (i..<(i + c.text.count), c.id) }
                    }
                }
                i += 1
            }
            return nil
        }
    }
}
