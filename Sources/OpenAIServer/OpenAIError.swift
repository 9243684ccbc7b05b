import Foundation
import HTTPCore
import OpenAIWire
import ServerKit

/// An error of the OpenAI-compatible API, in OpenAI's shape:
/// `{"error": {"message", "type", "param", "code"}}`, so that OpenAI's clients raise the right
/// exception (`AuthenticationError` for 401, `BadRequestError` with `param` for 400, …).
package struct OpenAIError: Error, Equatable, Sendable, CustomStringConvertible {
    package var status: Int
    package var message: String
    package var type: String
    package var param: String?
    package var code: String?

    package var description: String { "\(status) \(type): \(message)" + (param.map { " (\($0))" } ?? "") }

    package init(status: Int, message: String, type: String, param: String?, code: String?) {
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
    }

    /// A request the HTTP layer refused on its own (413 body too large, 400 framing, 408), in
    /// this shape for a route of the API.
    package init(framing error: HTTPFramingError) {
        self.init(
            status: error.status, message: error.message,
            type: error.status >= 500 ? "server_error" : "invalid_request_error", param: nil, code: error.code)
    }

    package static func invalidRequest(_ message: String, param: String?, code: String? = nil) -> OpenAIError {
        OpenAIError(status: 400, message: message, type: "invalid_request_error", param: param, code: code)
    }

    /// The answer for any error thrown while serving an OpenAI route: the API's own errors as
    /// they are, the server's (`APIError`: a bad token, a 413) translated, the rest opaque.
    package init(_ error: any Error, requestID: String) {
        switch error {
        case let error as OpenAIError:
            self = error
        case let error as AuthError:
            self.init(
                status: 401, message: "Incorrect API key: \(error.description). Use a Sotto token as the API key.",
                type: "invalid_request_error", param: nil, code: "invalid_api_key")
        default:
            let api = APIError(error, requestID: requestID)
            self.init(
                status: api.status, message: api.message,
                type: api.status >= 500 ? "server_error" : "invalid_request_error", param: nil, code: api.code)
        }
    }

    package var response: HTTPResponse {
        let body =
            (try? JSONBody.encode(
                OpenAIErrorBody(error: .init(message: message, type: type, param: param, code: code))))
            ?? []
        var response = HTTPResponse.json(bytes: body, status: status)
        if status == 401 { response.headers.append(("WWW-Authenticate", "Bearer")) }
        return response
    }
}
