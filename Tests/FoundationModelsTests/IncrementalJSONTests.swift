import Foundation
import TestSupport
import Testing

@testable import FoundationModels

/// The stream's JSON parser: fed a document in pieces, every snapshot is what parsing that
/// prefix whole gives (with the stream's ids), and its cost is linear in the response.
@Suite struct IncrementalJSONTests {
    /// A random JSON document with nesting, escapes, numbers and non-ASCII text.
    private func document(_ random: inout SplitMix64, depth: Int = 0) -> String {
        let pick = random.next() % (depth > 3 ? 4 : 7)
        switch pick {
        case 0: return ["true", "false", "null"][Int(random.next() % 3)]
        case 1: return ["0", "-12", "3.25", "1e3", "-0.5E-2", "42"][Int(random.next() % 6)]
        case 2, 3:
            let pieces = ["plain", " ", "é", "\\\"", "\\n", "\\u00e9", "\\ud83d\\ude00", "日本", "\\\\", "tab\\t"]
            let count = Int(random.next() % 6)
            return "\"" + (0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined() + "\""
        case 4, 5:
            let count = Int(random.next() % 4)
            let members = (0..<count).map { index in "\"k\(index)\": " + document(&random, depth: depth + 1) }
            return "{" + members.joined(separator: ", ") + "}"
        default:
            let count = Int(random.next() % 4)
            return "[" + (0..<count).map { _ in document(&random, depth: depth + 1) }.joined(separator: ",") + "]"
        }
    }

    @Test(.onTestThreads) func snapshotsMatchParsingEachPrefixWhole() throws {
        var random = SplitMix64(seed: 11)
        let base = GenerationID()
        for _ in 0..<150 {
            let text = document(&random)
            // Streamed text arrives in whole characters (the detokenizer holds back a partial
            // one), so the pieces are cut between scalars.
            let scalars = Array(text.unicodeScalars)
            var parser = IncrementalJSONParser(base: base)
            var offset = 0
            var prefix = ""
            while offset < scalars.count {
                let end = min(offset + 1 + Int(random.next() % 5), scalars.count)
                var piece = ""
                piece.unicodeScalars.append(contentsOf: scalars[offset..<end])
                try parser.append(piece.utf8)
                prefix += piece
                offset = end
                let whole = try? GeneratedContent(json: prefix)
                let snapshot = try? parser.snapshot()
                #expect(snapshot == whole, "\(prefix)")
                if let snapshot, let whole {
                    #expect(snapshot.jsonString == whole.jsonString, "\(prefix)")
                    #expect(snapshot.isComplete == whole.isComplete, "\(prefix)")
                    #expect(Self.ids(snapshot) == Self.ids(whole.identified(by: base)), "\(prefix)")
                }
            }
        }
    }

    @Test(.onTestThreads) func errorsAreTheWholeParsersAtTheSameOffset() throws {
        for text in [#"{"a" 1}"#, #"[1 2]"#, #"{"a": tru }"#, #"{"a": 01}"#, #"{"s": "\q"}"#, #"{"a": 1} x"#] {
            var parser = IncrementalJSONParser()
            var thrown: JSONSyntaxError?
            for byte in text.utf8 {
                do { try parser.append([byte]) } catch {
                    thrown = error
                    break
                }
            }
            if thrown == nil { _ = try? parser.finish() }
            do {
                _ = try GeneratedContent(json: text)
            } catch let LanguageModelSession.GenerationError.decodingFailure(context) {
                let offset = thrown.map { "at byte \($0.offset):" } ?? "none"
                #expect(context.debugDescription.contains(offset), "\(text): \(context.debugDescription) vs \(offset)")
            }
        }
    }

    /// Snapshot time per token, following a streamed structured response token by token, at
    /// lengths from 373 to 23,305 tokens (64 times longer): flat with the incremental parser
    /// when the reader lets go of each snapshot before the next (each byte read once, only the
    /// open containers rebuilt), and growing with the length when each snapshot parses the whole
    /// prefix again (what streams did before). A reader that keeps every last snapshot (a view
    /// model showing it) makes each snapshot copy the elements of the array still open (not its
    /// bytes), which is printed too. Asserts that the released case, timed over the last quarter
    /// of each stream, stays within 8× across the 64× range (a whole-prefix parse grows 64×) and
    /// that every way reads the same values.
    @Test(.onTestThreads) func snapshotCostPerTokenStaysFlat() throws {
        var rows: [String] = []
        var released: [Double] = []
        let perToken = { (duration: Duration, count: Int) in
            Double(duration.components.attoseconds / 1_000_000_000 + duration.components.seconds * 1_000_000_000)
                / Double(count) / 1000
        }
        for paragraphs in [16, 64, 256, 1024] {
            let pieces = Self.streamedStory(paragraphs: paragraphs)
            let clock = ContinuousClock()
            var parser = IncrementalJSONParser(base: GenerationID())
            var complete = false
            // Each run times windows of 64 tokens; the figure is the fastest window in the last
            // quarter of the stream (where the document is longest) over three runs. Other work
            // on the machine only ever adds time, and a window of well under a millisecond
            // often runs untouched by it, while a run of the whole stream never does on a
            // loaded 2-core machine (the tests run in parallel).
            var dropping = Duration.seconds(3600)
            var lateWindow = Duration.seconds(3600)
            let window = 64
            for _ in 0..<3 {
                parser = IncrementalJSONParser(base: GenerationID())
                var total = Duration.zero
                for start in stride(from: 0, to: pieces.count, by: window) {
                    let slice = pieces[start..<min(start + window, pieces.count)]
                    let spent = try clock.measure {
                        for piece in slice {
                            try parser.append(piece.utf8)
                            complete = try parser.snapshot()?.isComplete ?? false
                        }
                    }
                    total += spent
                    if slice.count == window, start + window > pieces.count * 3 / 4 {
                        lateWindow = min(lateWindow, spent)
                    }
                }
                dropping = min(dropping, total)
            }
            var held = IncrementalJSONParser(base: GenerationID())
            var last: GeneratedContent?
            let holding = try clock.measure {
                for piece in pieces {
                    try held.append(piece.utf8)
                    last = try held.snapshot()
                }
            }
            var text = ""
            var reparsed: GeneratedContent?
            let sample = min(pieces.count, 2000)  // the quadratic way gets slow; time a prefix
            let whole = clock.measure {
                for piece in pieces.prefix(sample) {
                    text += piece
                    reparsed = try? GeneratedContent(json: text)
                }
            }
            #expect(complete && last?.isComplete == true)
            #expect(try GeneratedContent(json: pieces.joined()) == last)
            #expect(try parser.snapshot() == last)
            #expect(reparsed == (try? GeneratedContent(json: pieces.prefix(sample).joined())))
            released.append(perToken(lateWindow, window))
            rows.append(
                String(
                    format:
                        "%6d tokens: incremental %6.2f µs/token (%6.2f at the end, %6.2f keeping each snapshot)   "
                        + "whole-prefix reparse %8.2f µs/token (first %d)",
                    pieces.count, perToken(dropping, pieces.count), perToken(lateWindow, window),
                    perToken(holding, pieces.count),
                    perToken(whole, sample), sample))
        }
        print("snapshot cost per token (build: \(Self.configuration)):\n" + rows.joined(separator: "\n"))
        let (shortest, longest) = (released.first ?? 0, released.last ?? 0)
        // 64 times the text: a parser that reparsed what it had would cost about 64 times as much
        // per token at the end of the longest stream; a bound of 8 leaves room for caches and
        // still tells the two apart.
        #expect(longest <= 8 * max(shortest, 0.5), "per-token cost grew from \(shortest) µs to \(longest) µs")
    }

    /// `{"title": …, "paragraphs": ["…", …]}` cut into pieces of about a token (4 bytes).
    static func streamedStory(paragraphs: Int) -> [String] {
        let paragraph = "The trail climbs through pine woods, past a lake, to a ridge with a view of the valley."
        let json =
            #"{"title": "A walk", "paragraphs": ["#
            + (0..<paragraphs).map { _ in "\"\(paragraph)\"" }.joined(separator: ", ")
            + "]}"
        var pieces: [String] = []
        var current = ""
        for character in json {
            current.append(character)
            if current.utf8.count >= 4 {
                pieces.append(current)
                current = ""
            }
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }

    static var configuration: String {
        #if DEBUG
            "debug"
        #else
            "release"
        #endif
    }

    private static func ids(_ content: GeneratedContent) -> [GenerationID?] {
        switch content.kind {
        case .array(let elements): [content.id] + elements.flatMap(ids)
        case .structure(let properties, let keys): [content.id] + keys.flatMap { properties[$0].map(ids) ?? [] }
        default: [content.id]
        }
    }
}
