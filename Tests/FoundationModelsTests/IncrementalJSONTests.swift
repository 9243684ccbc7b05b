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

    @Test func snapshotsMatchParsingEachPrefixWhole() throws {
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

    @Test func errorsAreTheWholeParsersAtTheSameOffset() throws {
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
    /// growing lengths: flat with the incremental parser (each byte read once, only the open
    /// containers rebuilt), growing with the length when each snapshot parses the whole prefix
    /// again (what streams did before). Prints; asserts only that both read the same values.
    @Test func snapshotCostPerTokenStaysFlat() throws {
        var rows: [String] = []
        for paragraphs in [16, 64, 256, 1024] {
            let pieces = Self.streamedStory(paragraphs: paragraphs)
            let clock = ContinuousClock()
            var parser = IncrementalJSONParser(base: GenerationID())
            var last: GeneratedContent?
            let incremental = try clock.measure {
                for piece in pieces {
                    try parser.append(piece.utf8)
                    last = try parser.snapshot()
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
            #expect(last?.isComplete == true)
            #expect(try GeneratedContent(json: pieces.joined()) == last)
            #expect(reparsed == (try? GeneratedContent(json: pieces.prefix(sample).joined())))
            let perToken = { (duration: Duration, count: Int) in
                Double(duration.components.attoseconds / 1_000_000_000 + duration.components.seconds * 1_000_000_000)
                    / Double(count)
            }
            rows.append(
                String(
                    format: "%6d tokens: incremental %7.2f µs/token   whole-prefix reparse %8.2f µs/token (first %d)",
                    pieces.count, perToken(incremental, pieces.count) / 1000, perToken(whole, sample) / 1000, sample))
        }
        print("snapshot cost per token (build: \(Self.configuration)):\n" + rows.joined(separator: "\n"))
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
