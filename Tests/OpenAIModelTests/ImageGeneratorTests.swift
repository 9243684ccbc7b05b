import Foundation
import OpenAIModel
import TestSupport
import Testing

/// `OpenAIImageGenerator` against a real HTTP endpoint on loopback (`FakeEndpoint`): it asks for
/// one `b64_json` image with the model, prompt, size and key, takes a PNG or JPEG, and refuses
/// everything else with a message that names the endpoint by its role, never its address.
@Suite struct ImageGeneratorTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 3, count: 32)

    func generator(_ endpoint: FakeEndpoint, maxImageBytes: Int = 8 * 1024 * 1024) -> OpenAIImageGenerator {
        let url = URL(string: "http://127.0.0.1:\(endpoint.port)/v1")!
        return OpenAIImageGenerator(
            endpoint: .init(baseURL: url, model: "fake-diffusion", apiKey: "sk-image", name: "the image server"),
            maxImageBytes: maxImageBytes)
    }

    func answer(_ endpoint: FakeEndpoint, _ status: Int, _ body: String) {
        endpoint.imageAnswer.withLock { $0 = (status, body) }
    }

    @Test func anImageIsAskedForAsB64JSONAndReturned() async throws {
        let endpoint = try FakeEndpoint()
        defer { endpoint.stop() }
        answer(endpoint, 200, #"{"created": 1, "data": [{"b64_json": "\#(Data(Self.png).base64EncodedString())"}]}"#)
        let image = try await generator(endpoint).generate(prompt: "a lighthouse at dusk", size: "512x512")
        #expect(image == .init(bytes: Self.png, mimeType: "image/png"))
        let request = try #require(endpoint.imageRequests.withLock { $0.first })
        #expect(request.path == "/v1/images/generations")
        #expect(request.header("Authorization") == "Bearer sk-image")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        #expect(body["model"] as? String == "fake-diffusion" && body["prompt"] as? String == "a lighthouse at dusk")
        #expect(body["response_format"] as? String == "b64_json" && body["n"] as? Int == 1)
        #expect(body["size"] as? String == "512x512")
        // Without a size, none is sent: the endpoint's default.
        _ = try await generator(endpoint).generate(prompt: "a cat")
        let second = try #require(endpoint.imageRequests.withLock { $0.last })
        let secondBody = try #require(try JSONSerialization.jsonObject(with: Data(second.body)) as? [String: Any])
        #expect(secondBody["size"] == nil)
    }

    @Test func whatIsNotAnImageIsAClearFailure() async throws {
        let endpoint = try FakeEndpoint()
        defer { endpoint.stop() }
        let cases: [(String, Int, String, String)] = [
            (
                "an error", 500, #"{"error": {"message": "out of memory"}}"#,
                "the image server answered 500: out of memory"
            ),
            ("a URL", 200, #"{"data": [{"url": "http://elsewhere/x.png"}]}"#, "response_format b64_json"),
            ("no data", 200, #"{"created": 1}"#, "without an image"),
            ("not JSON", 200, "<html>busy</html>", "without an image"),
            ("bad base64", 200, #"{"data": [{"b64_json": "%%%"}]}"#, "not valid base64"),
            (
                "not an image", 200, #"{"data": [{"b64_json": "\#(Data("GIF89a".utf8).base64EncodedString())"}]}"#,
                "not a PNG or JPEG"
            ),
            (
                "too large", 200,
                #"{"data": [{"b64_json": "\#(Data(Self.png + Array(repeating: 0, count: 2048)).base64EncodedString())"}]}"#,
                "larger than"
            ),
        ]
        for (name, status, body, expected) in cases {
            answer(endpoint, status, body)
            let failure = await Self.failure {
                try await generator(endpoint, maxImageBytes: 1024).generate(prompt: "x")
            }
            #expect(failure?.message.contains(expected) == true, "\(name): \(String(describing: failure))")
            #expect(failure?.message.contains("127.0.0.1") == false, "\(name)")
        }
    }

    /// The failure `body` throws; nil (recorded as an issue) when it throws nothing or something else.
    static func failure(_ body: () async throws -> OpenAIImageGenerator.Image) async -> OpenAIImageGenerator.Failure? {
        do {
            let image = try await body()
            Issue.record("an image came: \(image.mimeType), \(image.bytes.count) bytes")
        } catch let failure as OpenAIImageGenerator.Failure {
            return failure
        } catch {
            Issue.record("not an OpenAIImageGenerator.Failure: \(error)")
        }
        return nil
    }

    @Test func anEndpointThatIsNotThereSaysSoWithoutItsAddress() async throws {
        let endpoint = try FakeEndpoint()
        let made = generator(endpoint)
        endpoint.stop()
        let failure = await Self.failure { try await made.generate(prompt: "a cat") }
        #expect(failure?.endpointStatus == 0, "\(String(describing: failure))")
        #expect(failure?.message.hasPrefix("the image server did not answer") == true)
        #expect(failure?.message.contains("127.0.0.1") == false)
    }
}
