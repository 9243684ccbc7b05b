import Foundation
import HTTPCore

/// Reading request bodies and writing response bodies as JSON.
package enum JSONBody {
    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    package static func encode(_ value: some Encodable) throws -> [UInt8] {
        Array(try encoder.encode(value))
    }

    /// A JSON response with `value` as body.
    package static func response(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        do {
            return .json(bytes: try encode(value), status: status)
        } catch {
            return APIError(error).response
        }
    }

    /// Decodes the request body; throws `APIError` 400 (or 415) with a reason naming the field.
    package static func decode<T: Decodable>(_ type: T.Type, from request: HTTPRequest, emptyAs empty: T? = nil) throws
        -> T
    {
        if let contentType = request.header("Content-Type"), !contentType.lowercased().contains("json") {
            throw APIError(status: 415, code: "unsupported_media_type", message: "send the body as application/json")
        }
        if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            if let empty { return empty }
            throw APIError.badRequest("the request needs a JSON object body", code: "malformed_json")
        }
        guard request.body.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) == UInt8(ascii: "{")
        else {
            throw APIError.badRequest("the request body must be a JSON object", code: "malformed_json")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(request.body))
        } catch let error as DecodingError {
            throw APIError.badRequest(reason(error), code: "malformed_json")
        } catch {
            throw APIError.badRequest("malformed JSON: \(error)", code: "malformed_json")
        }
    }

    /// A short reason for a decoding failure, e.g. "missing field 'text'".
    package static func reason(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ extra: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath + (extra.map { [$0] } ?? [])
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : text
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing field '\(path(context, key))'"
        case .valueNotFound(_, let context): return "field '\(path(context))' must not be null"
        case .typeMismatch(let type, let context):
            let name =
                type == String.self
                ? "a string"
                : type == Bool.self
                    ? "a boolean"
                    : (type == Int.self || type == Double.self)
                        ? "a number" : type is [Any].Type ? "an array" : "\(type)"
            return context.codingPath.isEmpty
                ? "the body must be a JSON object" : "field '\(path(context))' must be \(name)"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "malformed JSON: \(context.debugDescription)" }
            return "field '\(path(context))': \(context.debugDescription)"
        @unknown default: return "malformed JSON"
        }
    }
}
