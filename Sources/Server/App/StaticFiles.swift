import Digests
import Foundation
import HTTPCore
import ServerKit

/// The web app's files (the `Web` resource folder), loaded once and served from memory.
///
/// Each file carries a strong `ETag` (its SHA-256, computed once at load) and is sent with
/// `Cache-Control: no-cache`: the browser keeps its copy but asks each time, and a request whose
/// `If-None-Match` names the current tag is answered `304 Not Modified` with no body, so a page
/// load revalidates the app in a few hundred bytes instead of downloading it again.
struct StaticFiles: Sendable {
    private struct File: Sendable {
        var contentType: String
        var body: [UInt8]
        /// `"<sha-256 hex>"`, quoted as HTTP writes entity tags.
        var etag: String
    }

    private let files: [String: File]

    /// The web app the server serves (`$SOTTO_WEB_ROOT` or the bundled `Web` folder), loaded on
    /// first use and shared by every server in the process: reading and hashing it is tens of
    /// milliseconds of file work, not to be repeated by each of a test run's hundred servers on
    /// the cooperative pool.
    static let app = StaticFiles()

    /// Loads every file under `folder`; without one, `$SOTTO_WEB_ROOT` or the bundled `Web`
    /// folder. With none of them, every path is 404 and the API still works.
    init(folder: URL? = nil) {
        var files: [String: File] = [:]
        if let root = folder ?? Self.defaultRoot(),
            let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        {
            let rootPath = root.standardizedFileURL.path
            for case let url as URL in enumerator {
                guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                    let data = FileManager.default.contents(atPath: url.path)
                else { continue }
                let relative = String(url.standardizedFileURL.path.dropFirst(rootPath.count))
                let body = Array(data)
                files[relative] = File(
                    contentType: Self.contentType(for: url.pathExtension), body: body,
                    etag: "\"\(SHA256.hex(of: body))\"")
            }
        }
        self.files = files
    }

    /// `$SOTTO_WEB_ROOT`, else the `Web` folder of the resource bundle next to the executable.
    ///
    /// Looked up by hand rather than through `Bundle.module`, which stops the process when the
    /// bundle is missing (say, the binary was copied without it).
    static func defaultRoot() -> URL? {
        if let override = ProcessInfo.processInfo.environment["SOTTO_WEB_ROOT"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        var candidates = [Bundle.main.bundleURL]
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() {
            candidates.append(executable)
        }
        for folder in candidates {
            let web = folder.appendingPathComponent("Sotto_Server.resources/Web")
            if FileManager.default.fileExists(atPath: web.appendingPathComponent("index.html").path) { return web }
        }
        return nil
    }

    /// Paths served, e.g. `/index.html`.
    var paths: [String] { files.keys.sorted() }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return APIError(status: 405, code: "method_not_allowed", message: "use GET").response.adding("Allow", "GET")
        }
        var path = request.path
        if path == "/" || path.isEmpty { path = "/index.html" }
        guard let file = files[path] else { return APIError.notFound("no file at \(path.prefix(200))").response }
        var headers: [(name: String, value: String)] = [
            ("ETag", file.etag),
            ("Cache-Control", "no-cache"),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
        ]
        if Self.matches(request.headerValues("If-None-Match"), etag: file.etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        headers.append(("Content-Type", file.contentType))
        headers.append(
            (
                "Content-Security-Policy",
                "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
            ))
        return HTTPResponse(status: 200, headers: headers, body: request.method == "HEAD" ? [] : file.body)
    }

    /// Whether `If-None-Match` (each header a comma-separated list of entity tags, or `*`)
    /// names `etag`. The comparison is the weak one RFC 9110 prescribes for this header: a
    /// `W/` prefix is ignored.
    static func matches(_ values: [String], etag: String) -> Bool {
        for value in values {
            for candidate in value.split(separator: ",") {
                var tag = candidate.trimmingCharacters(in: .whitespaces)
                if tag == "*" { return true }
                if tag.hasPrefix("W/") { tag.removeFirst(2) }
                if tag == etag { return true }
            }
        }
        return false
    }

    static func contentType(for pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "html": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json": "application/json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        default: "application/octet-stream"
        }
    }
}
