import Foundation

/// The web app's files (the `Web` resource folder), loaded once and served from memory.
struct StaticFiles: Sendable {
    private let files: [String: (contentType: String, body: [UInt8])]

    /// Loads every file under `folder`; without one, the bundled `Web` folder.
    init(folder: URL? = nil) {
        var files: [String: (String, [UInt8])] = [:]
        if let root = folder ?? Bundle.module.url(forResource: "Web", withExtension: nil),
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
                    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
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
