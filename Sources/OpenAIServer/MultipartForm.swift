import Foundation
import ServerKit

/// A `multipart/form-data` body (RFC 7578) split into its parts, without I/O: each part's
/// `name`, `filename`, content type and bytes.
///
/// ```swift
/// let form = try MultipartForm(body: request.body, contentType: request.header("Content-Type"))
/// form.part(named: "file")?.bytes
/// ```
package struct MultipartForm: Sendable {
    package struct Part: Sendable {
        var name: String
        var filename: String?
        var contentType: String?
        var bytes: [UInt8]

        /// The bytes as UTF-8 text (a form field's value).
        var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// Why a body is not a form.
    package struct Malformed: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    package let parts: [Part]

    /// The first part called `name`.
    package func part(named name: String) -> Part? { parts.first { $0.name == name } }

    /// The boundary of a `multipart/form-data` content type, or nil.
    package static func boundary(of contentType: String?) -> String? {
        guard let contentType else { return nil }
        let pieces = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard pieces.first?.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            var value = pair[1]
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            return value.isEmpty || value.count > 200 ? nil : value
        }
        return nil
    }

    package init(body: [UInt8], contentType: String?) throws(Malformed) {
        guard let boundary = Self.boundary(of: contentType) else {
            throw Malformed(description: "the body is not multipart/form-data with a boundary")
        }
        let delimiter = Array("--\(boundary)".utf8)
        let separator = Array("\r\n--\(boundary)".utf8)
        guard var position = Self.find(delimiter, in: body, from: 0) else {
            throw Malformed(description: "the form's boundary does not occur in the body")
        }
        position += delimiter.count
        var parts: [Part] = []
        while true {
            // After a delimiter: "--" ends the form, CRLF starts a part.
            if body.count >= position + 2, body[position] == 0x2D, body[position + 1] == 0x2D { break }
            guard body.count >= position + 2, body[position] == 0x0D, body[position + 1] == 0x0A else {
                throw Malformed(description: "a boundary is not followed by a line break")
            }
            position += 2
            guard let headEnd = Self.find(Array("\r\n\r\n".utf8), in: body, from: position) else {
                throw Malformed(description: "a part's headers do not end")
            }
            guard headEnd - position <= 8192 else { throw Malformed(description: "a part's headers are too long") }
            let head = String(decoding: body[position..<headEnd], as: UTF8.self)
            let start = headEnd + 4
            guard let end = Self.find(separator, in: body, from: start) else {
                throw Malformed(description: "the form does not end with its closing boundary")
            }
            var part = Part(name: "", filename: nil, contentType: nil, bytes: Array(body[start..<end]))
            for line in head.split(separator: "\r\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                if field == "content-disposition" {
                    part.name = Self.parameter("name", in: value) ?? ""
                    part.filename = Self.parameter("filename", in: value)
                } else if field == "content-type" {
                    part.contentType = value
                }
            }
            guard !part.name.isEmpty else { throw Malformed(description: "a part has no name") }
            parts.append(part)
            guard parts.count <= 64 else { throw Malformed(description: "the form has more than 64 parts") }
            position = end + separator.count
        }
        self.parts = parts
    }

    /// `key="value"` (or unquoted) among a header value's parameters.
    package static func parameter(_ key: String, in value: String) -> String? {
        for piece in value.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == key else { continue }
            var text = pair[1]
            if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 {
                text = String(text.dropFirst().dropLast())
            }
            return text.replacingOccurrences(of: "\\\"", with: "\"")
        }
        return nil
    }

    /// The first index of `needle` in `haystack` at or after `from`.
    package static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var i = from
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first {
                var j = 1
                while j < needle.count && haystack[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}
