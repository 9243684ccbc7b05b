import Foundation
import TestSupport
import Testing

@testable import OpenAIModel

/// What `ChunkDecoder` makes of each `data:` payload of a stream, read once: text, an error the
/// endpoint sent instead of a chunk, and what is not a chunk at all.
@Suite struct ChunkDecoderTests {
    private func failure(_ payload: String) -> OpenAIEndpointError? {
        var decoder = ChunkDecoder()
        do {
            _ = try decoder.events(fromChunk: Data(payload.utf8))
            return nil
        } catch {
            return error as? OpenAIEndpointError
        }
    }

    @Test(.onTestThreads) func contentBecomesOneEventPerChunk() throws {
        var decoder = ChunkDecoder()
        let events = try decoder.events(fromChunk: Data(#"{"choices": [{"delta": {"content": "Hi"}}]}"#.utf8))
        #expect(events.count == 1)
        #expect(try decoder.events(fromChunk: Data(#"{"choices": [{"delta": {}}]}"#.utf8)).isEmpty)
    }

    @Test(.onTestThreads) func anErrorInTheStreamIsThrownWithItsMessageAndCode() {
        let error = failure(#"{"error": {"message": "context too long", "code": "context_length_exceeded"}}"#)
        #expect(error?.message == "context too long" && error?.code == "context_length_exceeded")
    }

    @Test(.onTestThreads) func whatIsNotAJSONObjectOrNotAChunkIsNamed() {
        #expect(failure("not json")?.message == "a stream chunk is not a JSON object")
        #expect(failure("[1, 2]")?.message == "a stream chunk is not a JSON object")
        #expect(failure(#"{"choices": 3}"#)?.message == "a stream chunk is not a chat completion chunk")
    }
}
