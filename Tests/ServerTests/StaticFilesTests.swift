import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import Server

/// The web app's files revalidate instead of downloading again: a strong ETag (the content's
/// SHA-256), `Cache-Control: no-cache`, and `304 Not Modified` for an `If-None-Match` that names it.
@Suite struct StaticFilesCachingTests {
    /// A web folder of its own with two files, served by `StaticFiles(folder:)`.
    private func files() throws -> StaticFiles {
        let folder = try TestFolders.make("web")
        let contents: [String: [UInt8]] = [
            "/index.html": Array("<!doctype html><title>t</title>".utf8),
            "/app.js": Array("export const answer = 42;\n".utf8),
        ]
        for (path, bytes) in contents {
            try Data(bytes).write(to: URL(fileURLWithPath: folder + path))
        }
        return StaticFiles(folder: URL(fileURLWithPath: folder))
    }

    private func get(_ files: StaticFiles, _ path: String, _ headers: [(name: String, value: String)] = [])
        -> HTTPResponse
    {
        files.respond(to: HTTPRequest(method: "GET", path: path, headers: headers))
    }

    private func header(_ response: HTTPResponse, _ name: String) -> String? {
        response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    @Test(.onTestThreads) func eachFileCarriesTheSHA256OfItsContentAsAStrongETag() throws {
        // FIPS 180-2's test vectors: "abc", and the empty file.
        let folder = try TestFolders.make("web")
        try Data("abc".utf8).write(to: URL(fileURLWithPath: folder + "/abc.js"))
        try Data().write(to: URL(fileURLWithPath: folder + "/index.html"))
        let files = StaticFiles(folder: URL(fileURLWithPath: folder))
        let abc = get(files, "/abc.js")
        #expect(abc.status == 200)
        #expect(header(abc, "ETag") == "\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\"")
        #expect(header(abc, "Cache-Control") == "no-cache")
        let empty = "\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\""
        #expect(header(get(files, "/index.html"), "ETag") == empty)
        #expect(header(get(files, "/"), "ETag") == empty)  // `/` is index.html
    }

    @Test(.onTestThreads) func aMatchingIfNoneMatchIsAnsweredNotModifiedWithoutABody() throws {
        let files = try files()
        let first = get(files, "/app.js")
        let tag = try #require(header(first, "ETag"))
        for value in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
            let again = get(files, "/app.js", [("If-None-Match", value)])
            #expect(again.status == 304, "If-None-Match: \(value)")
            #expect(again.body.isEmpty)
            #expect(header(again, "ETag") == tag)
            #expect(header(again, "Cache-Control") == "no-cache")
        }
        // Another file's tag, a stale one, or a tag of another file: the whole file again.
        let index = try #require(header(get(files, "/index.html"), "ETag"))
        for value in [index, "\"0000\"", "", "W/\"x\""] {
            let full = get(files, "/app.js", [("If-None-Match", value)])
            #expect(full.status == 200, "If-None-Match: \(value)")
            #expect(full.body == first.body)
        }
    }

    @Test(.onTestThreads) func aChangedFileGetsANewTagAndTheOldOneNoLongerMatches() throws {
        let folder = try TestFolders.make("web")
        let path = folder + "/app.js"
        try Data("one".utf8).write(to: URL(fileURLWithPath: path))
        let before = StaticFiles(folder: URL(fileURLWithPath: folder))
        let oldTag = try #require(header(get(before, "/app.js"), "ETag"))
        try Data("two".utf8).write(to: URL(fileURLWithPath: path))
        let after = StaticFiles(folder: URL(fileURLWithPath: folder))
        let response = get(after, "/app.js", [("If-None-Match", oldTag)])
        #expect(response.status == 200)
        #expect(response.body == Array("two".utf8))
        #expect(header(response, "ETag") != oldTag)
    }

    @Test func theRunningServerRevalidatesItsWebApp() async throws {
        let server = try await TestServer.shared()
        let client = HTTPClient(port: server.port)
        for path in ["/", "/app.js", "/app.css"] {
            let first = try await client.get(path)
            #expect(first.status == 200, "\(path)")
            let tag = try #require(first.headers["etag"], "\(path) has no ETag")
            #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && tag.count == 66)
            #expect(first.headers["cache-control"] == "no-cache")
            let again = try await client.request("GET", path, headers: ["If-None-Match": tag])
            #expect(again.status == 304, "\(path)")
            #expect(again.body.isEmpty)
            #expect(again.headers["etag"] == tag)
        }
    }
}
