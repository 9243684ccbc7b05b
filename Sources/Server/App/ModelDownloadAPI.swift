import Foundation
import HTTPCore
import ServerKit

/// `GET` and `POST /api/model/download`: the default model fetched from the web app when it is
/// not downloaded. Only the model the server would load is offered (never a name from the
/// request), one download at a time; any signed-in user may start it, as they could ask the
/// operator to run `sotto model pull`.
struct ModelDownloadAPI: Sendable {
    let download: ModelDownload?

    static let notOffered = APIError(
        status: 404, code: "no_download",
        message:
            "No model download is offered: the server's model is there, turned off, or named by its configuration.")

    func add(to routes: inout RouteList) {
        let ref = APIOperation.ref
        routes.add(
            "GET", "/api/model/download",
            APIOperation(
                id: "modelDownload",
                summary: "How the download of the missing default model is going.",
                answers: [.init(200, "Its progress.", ref("ModelDownload"))], errors: [404])
        ) { _ in
            guard let download else { throw Self.notOffered }
            return JSONBody.response(download.progress)
        }
        routes.add(
            "POST", "/api/model/download",
            APIOperation(
                id: "startModelDownload",
                summary:
                    "Download the missing default model (as sotto model pull does); once it is in place the server restarts itself to load it. Starting one that runs or is done changes nothing.",
                answers: [.init(202, "Its progress.", ref("ModelDownload"))], errors: [404])
        ) { _ in
            guard let download else { throw Self.notOffered }
            return JSONBody.response(download.start(), status: 202)
        }
    }
}
