import ChatStore
import Foundation
import Testing

@testable import OpenAIServer
@testable import Server

/// `speech` in `GET /api/me`: whether the web app offers the microphone, and if not why.
@Suite("Speech state")
struct SpeechStateTests {
    @Test func meSaysWhenThereIsNoSpeechModel() async throws {
        let server = try await TestServer(configure: {
            $0.transcription = TranscriptionService(unavailable: "speech to text is turned off on this server")
        })
        let me = try await server.client(UserID(rawValue: "alice-speech-off")).get("/api/me")
        #expect(me.status == 200)
        let speech = try #require((try me.json())["speech"] as? [String: Any])
        #expect(speech["available"] as? Bool == false)
        #expect(speech["model"] == nil || speech["model"] is NSNull)
        #expect(speech["message"] as? String == "speech to text is turned off on this server")
    }

    @Test func meNamesTheSpeechModel() async throws {
        // The model loads at the first transcription, so a folder that is not there yet is enough.
        let folder = URL(fileURLWithPath: try TestFolders.make("speech")).appendingPathComponent("whisper-base")
        let server = try await TestServer(configure: {
            $0.transcription = TranscriptionService(modelID: "whisper-base", directory: folder)
        })
        let me = try await server.client(UserID(rawValue: "alice-speech-on")).get("/api/me")
        let speech = try #require((try me.json())["speech"] as? [String: Any])
        #expect(speech["available"] as? Bool == true)
        #expect(speech["model"] as? String == "whisper-base")
        #expect(speech["message"] as? String == "")
    }
}
