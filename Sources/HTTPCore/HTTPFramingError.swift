/// Why a request could not be read: the status to answer with (400, 408, 413, 431, 501, 505),
/// a stable code and a message. The connection is closed after the answer, since what follows
/// the bad bytes cannot be trusted to start a request.
public struct HTTPFramingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String

    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var description: String { "\(status) \(code): \(message)" }

    static func bad(_ message: String, code: String = "bad_request") -> HTTPFramingError {
        HTTPFramingError(status: 400, code: code, message: message)
    }
}
