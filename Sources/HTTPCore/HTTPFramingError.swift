/// Why a request could not be read: the status to answer with (400, 408, 413, 431, 501, 505),
/// a stable code and a message. The connection is closed after the answer, since what follows
/// the bad bytes cannot be trusted to start a request.
public struct HTTPFramingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    /// The request's path when its head was read before the failure (a body too large, a bad
    /// `Content-Length`), so the error body can follow the conventions of the routes under it
    /// (`Configuration.errorResponse`: OpenAI's error shape under `/v1/`); nil otherwise.
    public var path: String?

    public init(status: Int, code: String, message: String, path: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String { "\(status) \(code): \(message)" }

    static func bad(_ message: String, code: String = "bad_request") -> HTTPFramingError {
        HTTPFramingError(status: 400, code: code, message: message)
    }
}
