import ChatStore
import Foundation
import LocalEngine
import TestSupport
import Testing

@testable import Server

/// Files in channels over the API (issue 24): the type is what the bytes show, an image gets a
/// thumbnail and its text reaches the model, files are served to members only with
/// Content-Disposition and nosniff, and a deleted message takes its files with it.
@Suite struct AttachmentsAPITests {
    /// A server that reads images as `sotto serve` does (Leptonica and Tesseract).
    static func server() async throws -> TestServer {
        try await TestServer { configuration in
            configuration.readImage = { bytes, name in
                let preview = try await ImageReader.preview(of: bytes, label: name)
                return AttachmentImage(
                    width: preview.width, height: preview.height, thumbnail: preview.thumbnail,
                    thumbnailType: preview.thumbnailType, modelText: preview.context)
            }
        }
    }

    func upload(
        _ client: HTTPClient, _ cid: ChannelID, _ bytes: [UInt8], name: String,
        type: String = "application/octet-stream"
    ) async throws -> WireResponse {
        let query = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
        return try await client.request(
            "POST", channelPath(cid, "/attachments?name=\(query)"), body: bytes, headers: ["Content-Type": type])
    }

    @Test func anImageIsSentWithAMessageShownAsAThumbnailAndReadByTheModel() async throws {
        let server = try await Self.server()
        defer { server.server.stop() }
        let (alice, bob, cid) = try await server.pair()
        let screenshot = try [UInt8](Data(contentsOf: AssistantImageAPITests.fixture("screenshot.png")))
        // Said to be a plain download: its bytes decide.
        let uploaded = try await upload(server.client(alice), cid, screenshot, name: "review.png")
        #expect(uploaded.status == 201, "\(uploaded.text)")
        let info = try #require(try uploaded.json()["attachment"] as? [String: Any])
        let id = try #require(info["id"] as? String)
        #expect(info["mime_type"] as? String == "image/png")
        #expect(info["thumbnail"] as? Bool == true)
        #expect((info["width"] as? Int ?? 0) > 0)
        // Waiting: the uploader's alone, not yet Bob's.
        await #expect(try server.client(bob).get("/api/attachments/\(id)").status == 404)

        let sent = try await server.client(alice).post(
            channelPath(cid, "/messages"), ["text": "Where is it?", "attachment_ids": [id]])
        #expect(sent.status == 201, "\(sent.text)")
        let page = try await server.client(bob).get(channelPath(cid, "/messages")).json()
        let message = try #require((page["messages"] as? [[String: Any]])?.last)
        #expect((message["attachments"] as? [[String: Any]])?.map { $0["name"] as? String } == ["review.png"])

        let file = try await server.client(bob).get("/api/attachments/\(id)")
        #expect(file.status == 200)
        #expect(file.headers["content-type"] == "image/png")
        #expect(file.headers["content-disposition"]?.hasPrefix("inline; filename=\"review.png\"") == true)
        #expect(file.headers["x-content-type-options"] == "nosniff")
        #expect(file.body == screenshot)
        let thumbnail = try await server.client(bob).get("/api/attachments/\(id)/thumbnail")
        #expect(thumbnail.status == 200)
        #expect(thumbnail.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(thumbnail.body.count < screenshot.count)

        // What the model reads of the channel: the message, then the image's text.
        let read = try await server.store.recentMessages(in: cid, limit: 5)
        let text = try #require(read.last?.text)
        #expect(text.hasPrefix("Where is it?\n[Image context: \"review.png\""), "\(text)")
        #expect(text.contains("Aurora"), "\(text)")
        // Once is enough: a file goes with one message.
        let again = try await server.client(alice).post(
            channelPath(cid, "/messages"), ["text": "again", "attachment_ids": [id]])
        #expect(again.status == 404)

        // Deleting the message deletes its file.
        let messageID = try #require(message["id"] as? String)
        await #expect(try server.client(alice).request("DELETE", "/api/messages/\(messageID)").status == 200)
        await #expect(try server.client(bob).get("/api/attachments/\(id)").status == 404)
    }

    @Test func filesAreCheckedByContentAndServedToMembersOnlyAsDownloads() async throws {
        let server = try await Self.server()
        defer { server.server.stop() }
        let (alice, bob, cid) = try await server.pair()
        let client = server.client(alice)

        // Mislabelled: says it is an image, is HTML.
        let html = Array("<html><script>alert(1)</script></html>".utf8)
        let mislabelled = try await upload(client, cid, html, name: "cat.png", type: "image/png")
        #expect(mislabelled.status == 400)
        #expect(mislabelled.errorCode == "mislabelled_file")
        // A PNG signature on bytes that are no image: refused, not stored.
        let fake = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: UInt8(7), count: 40)
        let corrupt = try await upload(client, cid, fake, name: "broken.png", type: "image/png")
        #expect(corrupt.status == 400 && corrupt.errorCode == "unreadable_image", "\(corrupt.text)")
        // Too large: refused before the body is read.
        let huge = try await upload(
            client, cid, Array(repeating: 0x41, count: ChatStore.maxAttachmentBytes + 1), name: "big.txt")
        #expect(huge.status == 413)

        // HTML as a plain file, under a name with markup and a path: a download, never a page.
        let name = "../<img src=x onerror=alert(1)>\".html"
        let uploaded = try await upload(client, cid, html, name: name, type: "text/html")
        #expect(uploaded.status == 201, "\(uploaded.text)")
        let info = try #require(try uploaded.json()["attachment"] as? [String: Any])
        #expect(info["name"] as? String == "<img src=x onerror=alert(1)>\".html")
        #expect(info["mime_type"] as? String == "text/plain")
        let id = try #require(info["id"] as? String)
        _ = try await client.post(channelPath(cid, "/messages"), ["text": "notes", "attachment_ids": [id]])
        let file = try await server.client(bob).get("/api/attachments/\(id)")
        #expect(file.status == 200)
        #expect(file.headers["content-type"] == "application/octet-stream")
        let disposition = try #require(file.headers["content-disposition"])
        #expect(disposition.hasPrefix("attachment; filename=\"<img src=x onerror=alert(1)>_.html\""), "\(disposition)")
        #expect(disposition.contains("filename*=UTF-8''%3Cimg%20src%3Dx"), "\(disposition)")
        #expect(file.headers["x-content-type-options"] == "nosniff")

        // Someone outside the channel: nothing, as for a file that does not exist.
        let carol = server.client(try await server.outsider())
        let outside = try await carol.get("/api/attachments/\(id)")
        let none = try await carol.get("/api/attachments/00000000-0000-0000-0000-000000000000")
        #expect(outside.status == 404 && none.status == 404)
        #expect(!outside.text.contains("img"))
        let intoTheirs = try await upload(carol, cid, html, name: "x.txt")
        #expect(intoTheirs.status == 404)
        // Bob cannot send Alice's waiting file.
        let waiting = try #require(
            try await upload(client, cid, Array("hello".utf8), name: "a.txt").json()["attachment"] as? [String: Any])
        let stolen = try await server.client(bob).post(
            channelPath(cid, "/messages"), ["text": "mine", "attachment_ids": [waiting["id"] as? String ?? ""]])
        #expect(stolen.status == 404)
        // Taken back before it is sent: by its uploader only, and a sent file not at all.
        let waitingID = try #require(waiting["id"] as? String)
        await #expect(try server.client(bob).request("DELETE", "/api/attachments/\(waitingID)").status == 404)
        await #expect(try client.request("DELETE", "/api/attachments/\(waitingID)").status == 204)
        await #expect(try client.get("/api/attachments/\(waitingID)").status == 404)
        await #expect(try client.request("DELETE", "/api/attachments/\(id)").status == 404)
        await #expect(try server.client(bob).get("/api/attachments/\(id)").status == 200)
    }

    @Test func typesAreSniffedFromTheBytes() {
        #expect(AttachmentsAPI.sniff(Array("GIF89a....".utf8)) == "image/gif")
        #expect(AttachmentsAPI.sniff(Array("%PDF-1.7\n".utf8)) == "application/pdf")
        #expect(AttachmentsAPI.sniff(Array("RIFF\0\0\0\0WEBPVP8 ".utf8)) == "image/webp")
        #expect(AttachmentsAPI.sniff(Array("héllo\n".utf8)) == "text/plain")
        #expect(AttachmentsAPI.sniff([0x00, 0x01, 0xFE]) == "application/octet-stream")
        #expect(AttachmentsAPI.sniff([0xC3]) == "application/octet-stream")  // a cut character, short
    }
}
