import Foundation
import HTTPCore

/// The web app's files (the `Web` resource folder), loaded once and served from memory.
struct StaticFiles: Sendable {
    private let files: [String: (contentType: String, body: [UInt8])]

    /// Loads every file under `folder`; without one, `$SOTTO_WEB_ROOT` or the bundled `Web`
    /// folder. With none of them, every path is 404 and the API still works.
    init(folder: URL? = nil) {
        var files: [String: (String, [UInt8])] = [:]
        if let root = folder ?? Self.defaultRoot(),
            let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        {
            let rootPath = root.standardizedFileURL.path
            for case let url as URL in enumerator {
                guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                    let data = FileManager.default.contents(atPath: url.path)
                else { continue }
                let relative = String(url.standardizedFileURL.path.dropFirst(rootPath.count))
                files[relative] = (Self.contentType(for: url.pathExtension), Array(data))
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
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", file.contentType),
                ("Cache-Control", "no-cache"),
                ("X-Content-Type-Options", "nosniff"),
                ("Referrer-Policy", "no-referrer"),
                (
                    "Content-Security-Policy",
                    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
                ),
            ],
            body: request.method == "HEAD" ? [] : file.body)
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
