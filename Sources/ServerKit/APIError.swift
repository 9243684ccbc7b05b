import ChatStore
import Foundation
import HTTPCore

/// An error answer: HTTP status, a stable code and a human-readable message, sent as
/// `{"error": {"status", "code", "message"}}`. Every failure becomes one of these in `init(_:)`,
/// the one place errors are mapped to statuses.
public struct APIError: Error, Equatable, Sendable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    /// Seconds to wait before trying again, sent as `Retry-After` (with 429 and 503).
    public var retryAfter: Int?

    public init(status: Int, code: String, message: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    /// Maps any error to its answer. Errors that are not the client's (a failing database, a
    /// bug) become an opaque 500 naming `requestID`: their text (SQL included) stays in the
    /// server's log.
    public init(_ error: any Error, requestID: String? = nil) {
        switch error {
        case let error as APIError:
            self = error
        case let error as AuthError:
            if case .csrfRejected = error {
                self.init(status: 403, code: error.code, message: error.description)
            } else {
                self.init(status: 401, code: error.code, message: error.description)
            }
        case let error as ChatStoreError:
            switch error {
            case .invalidArgument: self.init(status: 400, code: "invalid_argument", message: error.description)
            case .notFound: self.init(status: 404, code: "not_found", message: error.description)
            case .notMember(_, let channel):
                // The same answer as for a channel that does not exist: whether a channel exists
                // is only its members' business.
                self.init(APIError(ChatStoreError.notFound(what: "channel", id: channel.cid)))
            case .forbidden: self.init(status: 403, code: "forbidden", message: error.description)
            case .conflict: self.init(status: 409, code: "conflict", message: error.description)
            case .quotaExceeded: self.init(status: 409, code: "quota_exceeded", message: error.description)
            }
        case let error as DatabaseError where error.isBusy:
            // Another process holds the database; retry later.
            self.init(status: 503, code: "busy", message: "the database is busy, retry shortly")
        default:
            self.init(
                status: 500, code: "internal",
                message: "internal error"
                    + (requestID.map { "; the server's log has the details under request id \($0)" } ?? ""))
        }
    }

    public var description: String { "\(status) \(code): \(message)" }

    public static func badRequest(_ message: String, code: String = "bad_request") -> APIError {
        APIError(status: 400, code: code, message: message)
    }

    public static func notFound(_ message: String) -> APIError {
        APIError(status: 404, code: "not_found", message: message)
    }

    /// An error as its JSON body writes it: `{"error": {"status", "code", "message"}}`.
    package struct Body: Encodable {
        package struct Inner: Encodable {
            var status: Int
            var code: String
            var message: String
        }
        package var error: Inner

        package init(status: Int, code: String, message: String) {
            error = Inner(status: status, code: code, message: message)
        }
    }

    /// The JSON body of this error.
    package var body: [UInt8] {
        (try? JSONBody.encode(Body(status: status, code: code, message: message))) ?? []
    }

    package var response: HTTPResponse {
        var response = HTTPResponse.json(bytes: body, status: status)
        if status == 401 { response.headers.append(("WWW-Authenticate", "Bearer")) }
        if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
        return response
    }
}
