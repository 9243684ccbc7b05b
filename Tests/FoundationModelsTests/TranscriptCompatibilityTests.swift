import Foundation
import FoundationModels
import TestSupport
import Testing

// Code written for the 26.4 SDK, where `Transcript` is a `RandomAccessCollection` only and
// `filter` gives `[Transcript.Entry]`, beside code written for 27, where it is also a
// `RangeReplaceableCollection` whose `filter` gives a `Transcript`. Both compile here.

/// 26.4: the filtered entries are an array, used as one.
enum Transcript264Code {
    static func prompts(in session: LanguageModelSession) -> [Transcript.Entry] {
        let prompts = session.transcript.filter { entry in
            if case .prompt = entry { return true }
            return false
        }
        return prompts
    }

    static func lastResponses(in transcript: Transcript) -> [String] {
        let responses = transcript.filter { if case .response = $0 { true } else { false } }
        var texts: [String] = []
        for case .response(let response) in responses { texts.append(response.description) }
        return texts + summarize(responses)
    }

    private static func summarize(_ entries: [Transcript.Entry]) -> [String] {
        entries.isEmpty ? [] : ["\(entries.count) responses"]
    }
}

/// 27: a filtered transcript where a transcript is wanted.
enum Transcript27Code {
    static func dropToolEntries(from session: LanguageModelSession) {
        session.transcript = session.transcript.filter { entry in
            switch entry {
            case .toolCalls, .toolOutput: false
            default: true
            }
        }
    }

    static func restart(from transcript: Transcript, model: some LanguageModel) -> LanguageModelSession {
        LanguageModelSession(
            model: model, transcript: transcript.filter { if case .reasoning = $0 { false } else { true } })
    }

    static func trimmed(_ transcript: Transcript) -> Transcript {
        let kept: Transcript = transcript.filter { if case .prompt = $0 { true } else { false } }
        var copy = kept
        copy.append(contentsOf: transcript.suffix(1))
        return copy
    }
}

/// Code that builds with both SDKs, as an app that ships with both writes it.
enum BothSDKsCode {
    static func prompts(in transcript: Transcript) -> [Transcript.Entry] {
        Array(transcript.filter { if case .prompt = $0 { true } else { false } })
    }
}

@Suite struct TranscriptCompatibilityTests {
    private var transcript: Transcript {
        Transcript(entries: [
            .instructions(Transcript.Instructions(segments: [.text(.init(content: "Be brief."))], toolDefinitions: [])),
            .prompt(Transcript.Prompt(segments: [.text(.init(content: "Hi"))])),
            .toolCalls(Transcript.ToolCalls([])),
            .response(Transcript.Response(assetIDs: [], segments: [.text(.init(content: "Hello"))])),
        ])
    }

    @Test(.onTestThreads) func code264GetsArrays() {
        let session = LanguageModelSession(model: ScriptedModel(turns: []), transcript: transcript)
        #expect(Transcript264Code.prompts(in: session).count == 1)
        #expect(Transcript264Code.lastResponses(in: transcript) == ["Hello", "1 responses"])
        #expect(BothSDKsCode.prompts(in: transcript).count == 1)
    }

    @Test(.onTestThreads) func code27GetsTranscripts() {
        let session = LanguageModelSession(model: ScriptedModel(turns: []), transcript: transcript)
        Transcript27Code.dropToolEntries(from: session)
        #expect(session.transcript.count == 3)
        #expect(Transcript27Code.restart(from: transcript, model: ScriptedModel(turns: [])).transcript.count == 4)
        #expect(Transcript27Code.trimmed(transcript).count == 2)
    }
}
