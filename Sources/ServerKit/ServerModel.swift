import ChatIntelligence
import ChatStore
import Foundation
import FoundationModels
import ModelStore

/// The local model behind the server's features (reply suggestions, writing tools, translation,
/// summaries, date actions, search suggestions, the assistant), or why there is none, in words a
/// user can act on: the web app shows ``message`` where a feature would be. With a ``fallback``
/// configured, the features run on it while the local model is unavailable; with a pool beside
/// the local model (``withPool(_:name:)``), they run on the pool, which holds the local model.
public struct ServerModel: Sendable {
    /// Why there is no model.
    public enum Unavailability: String, Sendable, Codable {
        /// The model named (or the default) is not downloaded.
        case notDownloaded = "not_downloaded"
        /// The machine has too little memory for it.
        case machineTooSmall = "machine_too_small"
        /// Turned off: `SOTTO_MODEL=off`, or `sotto serve --no-suggestions`.
        case turnedOff = "turned_off"
        /// The server runs without a model on purpose (`--canned-suggestions`, tests).
        case noModel = "no_model"
    }

    /// The model, when there is one.
    public let model: SystemLanguageModel?
    /// Its catalog id or file path (for the page and the log).
    public let name: String?
    public let unavailability: Unavailability?
    /// What is wrong and what to do about it; empty when the model is there.
    public let message: String

    /// The hybrid fallback (`sotto serve --fallback-url`): a model behind an OpenAI-compatible
    /// endpoint that the features use while the local model is unavailable; nil unless configured.
    public private(set) var fallback: Fallback?
    /// Whether ``fallback`` is a pool that holds the local model as one of its members: the
    /// features then run on it even while the local model is there.
    public var poolHoldsLocal: Bool { fallback?.holdsLocal ?? false }

    /// A model of the seam other than the local one, and its name as results show it
    /// ("m at http://host/v1").
    public struct Fallback: Sendable {
        public let model: any LanguageModel
        public let name: String
        /// A pool that holds the local model (``withPool(_:name:)``).
        var holdsLocal = false
    }

    /// The model a feature runs on: the local one when it is there, else the fallback.
    package struct Choice: Sendable {
        package let model: any LanguageModel
        /// What each result says produced it.
        package let name: String
        /// The local model when it is the one chosen: what only it can answer (token counts, its
        /// context size, its languages, loading) is asked of it.
        package let local: SystemLanguageModel?
    }

    /// What the features run on now; nil when neither the local model nor a fallback is there.
    package var choice: Choice? {
        if poolHoldsLocal, let fallback { return Choice(model: fallback.model, name: fallback.name, local: nil) }
        if let model { return Choice(model: model, name: name ?? "local", local: model) }
        if let fallback { return Choice(model: fallback.model, name: fallback.name, local: nil) }
        return nil
    }

    /// The model for a route that needs one, or the API's 409 `model_unavailable` with `message`.
    package func required() throws -> Choice {
        guard let choice else { throw APIError(status: 409, code: "model_unavailable", message: message) }
        return choice
    }

    /// The model `model`, named `name`.
    public static func ready(_ model: SystemLanguageModel, name: String) -> ServerModel {
        ServerModel(model: model, name: name, unavailability: nil, message: "")
    }

    /// No model, for `reason`, explained by `message`.
    public static func unavailable(_ reason: Unavailability, message: String) -> ServerModel {
        ServerModel(model: nil, name: nil, unavailability: reason, message: message)
    }

    /// This model with `fallback` (named `name`) behind it: the features use the fallback while
    /// the local model is unavailable. Nothing is sent to it while the local model is there.
    /// `name` is shown and stored: a URL in it loses any user and password it carries.
    public func withFallback(_ fallback: some LanguageModel, name: String) -> ServerModel {
        var copy = self
        copy.fallback = Fallback(model: fallback, name: CredentialRedaction.redacted(name))
        return copy
    }

    /// This model with `pool` (named `name`) in its place: a pool of inference servers that
    /// holds this local model as one of its members (`InferencePool(endpoints:beside:named:)`),
    /// so each feature's request runs here or on a server, whichever is least busy. What the
    /// features read may then be sent to the servers. `name` is shown and stored: a URL in it
    /// loses any user and password it carries.
    public func withPool(_ pool: some LanguageModel, name: String) -> ServerModel {
        var copy = withFallback(pool, name: name)
        copy.fallback?.holdsLocal = model != nil
        return copy
    }

    /// No model, as when the server is made without one (tests, embedding).
    public static let none = unavailable(
        .noModel, message: "This server runs without a local model. Start it with sotto serve to use one.")

    /// The model `sotto serve` uses: `name` (a model id or a path; nil: `SOTTO_MODEL`, else the
    /// default), resolved as every command resolves it.
    ///
    /// - Throws: `ModelStoreError` for a model named by `--model` or `SOTTO_MODEL` that is not
    ///   there: the server does not start with a model other than the one asked for. Only when
    ///   nothing names a model (or `SOTTO_MODEL=off`) does it run without one, saying why.
    public static func resolve(
        named name: String?, in store: ModelStore, physicalMemory: UInt64 = ProcessInfo.processInfo.physicalMemory
    ) throws(ModelStoreError) -> ServerModel {
        let file: ModelFile
        do throws(ModelStoreError) {
            file = try store.resolve(name)
        } catch .turnedOff(let setting) where name == nil {
            return .unavailable(
                .turnedOff,
                message:
                    "The local model is turned off on this server (SOTTO_MODEL=\(setting)). To turn it on, restart sotto serve without SOTTO_MODEL=\(setting)."
            )
        } catch .notDownloaded(let id, _) where name == nil && store.configuredModel == nil {
            return .unavailable(
                .notDownloaded,
                message:
                    "The model \(id) is not downloaded on this server. Run `sotto model pull \(id)` there, then restart sotto serve."
            )
        }
        let model = SystemLanguageModel(model: .path(file.path))
        let label = file.catalogModel?.id ?? file.path
        // The same rule as `SystemLanguageModel.availability`, on this machine's memory as given.
        let fits = SystemLanguageModel.fits(
            SystemModelFile(path: file.path, size: file.size), physicalMemory: physicalMemory)
        guard fits else {
            let gigabytes = { (bytes: UInt64) in String(format: "%.1f GB", Double(bytes) / 1_073_741_824) }
            return .unavailable(
                .machineTooSmall,
                message:
                    "This machine is too small for the model \(label): it has \(gigabytes(physicalMemory)) of memory, and the model needs about \(gigabytes(UInt64(file.size) + 512 << 20)). Start sotto serve with a smaller model, such as --model qwen2.5-coder-0.5b."
            )
        }
        return .ready(model, name: label)
    }

    /// Prefills the writing tools' fixed instructions and examples in the background, so the
    /// first tool a user runs costs only its own draft (a server calls this when it starts).
    public func prewarm() {
        guard let model else { return }
        WritingTools(model: model).prewarm()
    }

    /// Turned off by `sotto serve --no-suggestions`.
    public static let turnedOffByFlag = unavailable(
        .turnedOff,
        message:
            "The local model is turned off on this server (sotto serve --no-suggestions). To turn it on, restart sotto serve without --no-suggestions."
    )

    /// Stand-in suggestions without a model (`sotto serve --canned-suggestions`).
    public static let canned = unavailable(
        .noModel,
        message:
            "This server runs with --canned-suggestions: fixed stand-in replies and no model. Restart sotto serve without it to use the local model."
    )
}
