import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Images made from a prompt by an OpenAI-compatible `/v1/images/generations` endpoint (a local
/// diffusion server, or a hosted one): Sotto has no image model of its own, so this is only used
/// when someone configures one.
///
/// It asks for one image as `b64_json` and checks what comes back: PNG or JPEG, at most
/// ``maxImageBytes``. It throws ``Failure``, whose message names no address.
public struct OpenAIImageGenerator: Sendable {
    /// The endpoint's base URL (ending in `/v1`), model name and key; `name` is how errors call
    /// it ("the image server").
    public let endpoint: OpenAICompatibleModel.Endpoint
    /// The largest image accepted, in bytes (decoded).
    public var maxImageBytes: Int

    /// The sizes asked for; the endpoint's own default when none is given.
    public static let sizes = ["256x256", "512x512", "1024x1024"]

    public init(endpoint: OpenAICompatibleModel.Endpoint, maxImageBytes: Int = 8 * 1024 * 1024) {
        self.endpoint = endpoint
        self.maxImageBytes = maxImageBytes
    }

    /// Why no image came, in words that can be shown to the user (the endpoint is named by
    /// `endpoint.name`, never by its address).
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var message: String
        /// The endpoint's HTTP status; 0 when it did not answer, 200 when its answer was wrong.
        public var endpointStatus: Int
        public var description: String { message }
    }

    /// A made image: its bytes and type (`image/png` or `image/jpeg`).
    public struct Image: Sendable, Equatable {
        public var bytes: [UInt8]
        public var mimeType: String

        public init(bytes: [UInt8], mimeType: String) {
            self.bytes = bytes
            self.mimeType = mimeType
        }
    }

    /// One image for `prompt`, of `size` (one of ``sizes``) when given.
    public func generate(prompt: String, size: String? = nil) async throws -> Image {
        var body: [String: Any] = [
            "model": endpoint.model, "prompt": prompt, "n": 1, "response_format": "b64_json",
        ]
        if let size { body["size"] = size }
        var request = URLRequest(url: endpoint.baseURL.appendingPathComponent("images/generations"))
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        request.timeoutInterval = endpoint.timeout
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let key = endpoint.apiKey { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        // Base64 of the largest image, and room for the JSON around it.
        let answerLimit = maxImageBytes / 3 * 4 + 64 * 1024
        var answer = Data()
        do {
            for try await line in EventStreamClient.lines(of: request) {
                answer.append(contentsOf: line.utf8)
                answer.append(0x0A)
                guard answer.count <= answerLimit else {
                    throw failure("sent more than \(Self.sizeText(maxImageBytes))")
                }
            }
        } catch let error as OpenAIEndpointError {
            throw Failure(message: error.description(naming: endpoint.name), endpointStatus: error.status)
        }
        return try Self.image(fromAnswer: answer, maxBytes: maxImageBytes) { failure($0) }
    }

    /// The image in an endpoint's JSON answer (`data[0].b64_json`).
    static func image(fromAnswer answer: Data, maxBytes: Int, failure: (String) -> Failure) throws -> Image {
        let object = (try? JSONSerialization.jsonObject(with: answer)) as? [String: Any]
        guard let items = object?["data"] as? [[String: Any]], let first = items.first else {
            throw failure("answered without an image (no \"data\" list)")
        }
        guard let encoded = first["b64_json"] as? String else {
            if first["url"] != nil {
                throw failure("answered with a URL instead of the image; it must support response_format b64_json")
            }
            throw failure("answered without an image (no \"b64_json\")")
        }
        guard let data = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters) else {
            throw failure("sent an image that is not valid base64")
        }
        guard data.count <= maxBytes else {
            throw failure("sent an image larger than \(sizeText(maxBytes))")
        }
        let bytes = [UInt8](data)
        guard let type = Self.imageType(of: bytes) else {
            throw failure("sent something that is not a PNG or JPEG image")
        }
        return Image(bytes: bytes, mimeType: type)
    }

    /// The image type the first bytes say (PNG's signature, JPEG's start-of-image marker), or nil.
    public static func imageType(of bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        return nil
    }

    static func sizeText(_ bytes: Int) -> String {
        bytes >= 1024 * 1024 ? "\(bytes / (1024 * 1024)) MB" : "\(bytes / 1024) KB"
    }

    private func failure(_ what: String) -> Failure {
        Failure(message: "\(endpoint.name) \(what)", endpointStatus: 200)
    }
}
