import AssistantServer
import ChatStore
import Foundation
import HTTPCore
import ServerKit

/// Files in channels: uploaded (`POST /api/channels/{cid}/attachments`, the body is the file),
/// then carried by the uploader's next message that names them in `attachment_ids`, and served
/// to the channel's members only. A file's type is what its bytes show, never what the upload
/// says; images are served inline as images, everything else as a download.
struct AttachmentsAPI: Sendable {
    let store: ChatStore
    /// Reads an image's size, thumbnail and text (nil: images are kept without them).
    let readImage: (@Sendable (_ bytes: [UInt8], _ name: String) async throws -> AttachmentImage)?

    private static let uploadPrefix = "/api/channels/"
    private static let uploadSuffix = "/attachments"

    /// Whether a request head is a file upload, whose body may be up to `maxAttachmentBytes`.
    static func isUpload(method: String, path: String) -> Bool {
        guard method == "POST", path.hasPrefix(uploadPrefix), path.hasSuffix(uploadSuffix) else { return false }
        let cid = path.dropFirst(uploadPrefix.count).dropLast(uploadSuffix.count)
        return (try? ChannelID.parse(String(cid).removingPercentEncoding ?? "")) != nil
    }

    /// The types the server names for what bytes hold; anything else is
    /// `application/octet-stream`.
    static func sniff(_ bytes: [UInt8]) -> String {
        if let image = AssistantAPI.imageType(of: bytes) { return image }  // PNG or JPEG
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return "image/gif" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        if bytes.starts(with: Array("%PDF-".utf8)) { return "application/pdf" }
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return "application/zip" }
        let head = bytes.prefix(8192)
        if !head.contains(0), String(validating: head, as: UTF8.self) != nil || head.count == 8192 && isMostlyUTF8(head)
        {
            return "text/plain"
        }
        return "application/octet-stream"
    }

    /// A text cut at 8 KB may end inside a character: valid once its last three bytes go.
    private static func isMostlyUTF8(_ head: ArraySlice<UInt8>) -> Bool {
        (0...3).contains { String(validating: head.dropLast($0), as: UTF8.self) != nil }
    }

    /// Shown by the browser inline (images it decodes safely); everything else is downloaded.
    static let inlineTypes: Set = ["image/png", "image/jpeg", "image/gif", "image/webp"]

    func add(to routes: inout RouteList) {
        let ref = APIOperation.ref
        routes.add(
            "POST", "/api/channels/{cid}/attachments",
            APIOperation(
                id: "uploadAttachment",
                summary:
                    "Upload a file (the body, up to 10 MB) for your next message in this channel, which names it in attachment_ids. Its type is what its bytes show: a body that says it is an image and is not gets 400 mislabelled_file. An image gets a thumbnail, and the model features read the text in it.",
                query: [.init("name", ##"{"type": "string", "minLength": 1, "maxLength": 200}"##)],
                body: ##"{"type": "string", "format": "binary"}"##,
                bodyMediaTypes: ["application/octet-stream", "image/png", "image/jpeg", "text/plain"],
                answers: [
                    .init(
                        201, "The file, waiting for your message.",
                        ##"{"type": "object", "required": ["attachment"], "properties": {"attachment": \##(ref("AttachmentInfo"))}}"##
                    )
                ], errors: [404, 413, 429])
        ) { context in
            let cid = try ChannelID.parse(context.parameter("cid"))
            guard let name = context.query["name"] else {
                throw APIError.badRequest("name: the file's name is missing")
            }
            let bytes = context.request.body
            let type = Self.sniff(bytes)
            let declared = context.request.header("Content-Type")?.lowercased() ?? ""
            if declared.hasPrefix("image/"), !type.hasPrefix("image/") {
                throw APIError(
                    status: 400, code: "mislabelled_file",
                    message: "That file says it is an image (\(declared)) but its bytes are not one.")
            }
            // Membership first: nobody makes the server read an image for a channel they are not in.
            guard try await store.isMember(context.authenticatedUser, of: cid) else {
                throw ChatStoreError.notFound(what: "channel", id: cid.cid)
            }
            var image: AttachmentImage?
            if type == "image/png" || type == "image/jpeg", let readImage {
                do {
                    image = try await readImage(bytes, name)
                } catch {
                    throw APIError(
                        status: 400, code: "unreadable_image", message: "That image cannot be read: \(error)")
                }
            }
            let info = try await store.addAttachment(
                NewAttachment(
                    cid: cid, uploader: context.authenticatedUser, name: name, mimeType: type, bytes: bytes,
                    image: image))
            return JSONBody.response(AttachmentResponse(attachment: info), status: 201)
        }
        routes.add(
            "DELETE", "/api/attachments/{attachment_id}",
            APIOperation(
                id: "removeAttachment",
                summary: "Take back a file you uploaded and have not sent yet (a sent one goes with its message).",
                answers: [.init(204, "Removed.")], errors: [404])
        ) { context in
            try await store.deleteWaitingAttachment(try Self.attachmentID(context), by: context.authenticatedUser)
            return HTTPResponse(status: 204)
        }
        for thumbnail in [false, true] {
            routes.add(
                "GET", thumbnail ? "/api/attachments/{attachment_id}/thumbnail" : "/api/attachments/{attachment_id}",
                APIOperation(
                    id: thumbnail ? "attachmentThumbnail" : "attachment",
                    summary: thumbnail
                        ? "An image's thumbnail (at most 320 pixels a side)."
                        : "A file, for the members of its channel: an image inline, anything else as a download (Content-Disposition: attachment, application/octet-stream).",
                    answers: [.init(200, "The file.", ##"{"type": "string", "format": "binary"}"##)], errors: [404])
            ) { context in
                let file = try await store.attachment(
                    try Self.attachmentID(context), for: context.authenticatedUser, thumbnail: thumbnail)
                let inline = Self.inlineTypes.contains(file.info.mimeType)
                return HTTPResponse(
                    status: 200,
                    headers: [
                        ("Content-Type", inline ? file.info.mimeType : "application/octet-stream"),
                        ("Content-Disposition", Self.disposition(inline: inline, name: file.info.name)),
                        ("Content-Security-Policy", "default-src 'none'; sandbox"),
                        ("X-Content-Type-Options", "nosniff"),
                    ], body: file.bytes)
            }
        }
    }

    /// The file id of a route, or the 404 of a file that does not exist.
    static func attachmentID(_ context: RequestContext) throws -> String {
        let id = context.parameter("attachment_id")
        guard id.count <= 64, id.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == "-") }) else {
            throw ChatStoreError.notFound(what: "file", id: "")
        }
        return id
    }

    /// `inline` or `attachment`, with the name as RFC 6266 gives it: an ASCII fallback (quotes,
    /// backslashes and controls replaced) and the UTF-8 name percent-encoded.
    static func disposition(inline: Bool, name: String) -> String {
        let fallback = String(
            name.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && scalar.value >= 0x20 && scalar != "\"" && scalar != "\\" && scalar.value != 0x7F
                    ? Character(scalar) : "_"
            })
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<"\u{80}"))
        allowed.insert(charactersIn: "-._~")
        let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? fallback
        return "\(inline ? "inline" : "attachment"); filename=\"\(fallback)\"; filename*=UTF-8''\(encoded)"
    }
}

struct AttachmentResponse: Encodable {
    var attachment: AttachmentInfo
}
