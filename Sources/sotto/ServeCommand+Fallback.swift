import Foundation
import FoundationModels
import OpenAIModel
import Server
import ServerKit

/// The hybrid fallback of `sotto serve`: a model behind an OpenAI-compatible endpoint that
/// serves the AI features (reply suggestions, writing tools, translation, summaries, date
/// actions, search suggestions, the assistant) while the local model is unavailable. Off unless
/// `--fallback-url` is given: nothing leaves the machine otherwise.
extension ServeCommand {
    static let fallbackUsage = """
          --fallback-url URL  an OpenAI-compatible API (ending in /v1: another sotto serve,
                              llama-server, a hosted one) that serves the AI features (suggestions,
                              writing tools, translation, summaries, the assistant) while the
                              local model is unavailable (not downloaded, machine too small,
                              SOTTO_MODEL=off, --model off). Off by default: nothing leaves this
                              machine unless this is set; when it is, what those features read
                              (a conversation, a draft, a message, an assistant chat) is sent there
          --fallback-model M  the model name at that endpoint (required with --fallback-url)
          --fallback-key-file PATH  a file holding its API key (default: $SOTTO_FALLBACK_KEY, else none)
          --pool-urls URL,URL…  a pool of OpenAI-compatible servers (other sotto serve
                              --inference-only, llama-server) for those features, beside the local
                              model when there is one (it is one more member) or instead of it:
                              each request goes to the healthy member with the fewest in flight,
                              one that fails is left for 15 s and its request sent to another;
                              health checked every 10 s (GET …/models); their state in
                              GET /api/metrics. What the features read is sent to the servers
          --pool-model M      the model name at those servers (required with --pool-urls)
          --pool-key-file PATH  a file holding their API key (default: $SOTTO_POOL_KEY, else none)
        """

    /// The fallback configured by the arguments (one server, or a pool, holding `local` when it
    /// is given), named as the web app shows it; nil when none is.
    static func fallbackModel(_ arguments: Arguments, local: (model: SystemLanguageModel, name: String)? = nil) throws
        -> (model: any LanguageModel, name: String, pool: InferencePool?)?
    {
        if let pool = try configuredPool(arguments, local: local) {
            guard arguments.string("fallback-url") == nil else {
                throw UsageError(description: "--fallback-url and --pool-urls: give one or the other")
            }
            pool.startHealthChecks(every: .seconds(10))
            return (PooledModel(pool: pool), pool.name, pool)
        }
        guard
            let endpoint = try configuredEndpoint(
                arguments, option: "fallback", keyVariable: "SOTTO_FALLBACK_KEY", name: "the fallback server")
        else { return nil }
        // The name is shown (the page, each result, the log) and stored (assistant messages):
        // credentials in the URL stay in the endpoint, where the request is made.
        return (OpenAICompatibleModel(endpoint: endpoint), "\(endpoint.model) at \(endpoint.displayURL)", nil)
    }

    /// The pool `--pool-urls` (comma-separated), `--pool-model` and `--pool-key-file` (else
    /// `$SOTTO_POOL_KEY`) configure, with this server's `local` model as one more member when it
    /// is given; nil when no URLs are given.
    static func configuredPool(_ arguments: Arguments, local: (model: SystemLanguageModel, name: String)? = nil)
        throws -> InferencePool?
    {
        guard let list = arguments.string("pool-urls") else {
            if arguments.string("pool-model") != nil || arguments.string("pool-key-file") != nil {
                throw UsageError(description: "--pool-model and --pool-key-file need --pool-urls")
            }
            return nil
        }
        let urls = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !urls.isEmpty else { throw UsageError(description: "--pool-urls needs at least one URL") }
        let endpoints = try urls.map { url in
            try endpoint(
                url: url, arguments, option: "pool", urlOption: "pool-urls", keyVariable: "SOTTO_POOL_KEY",
                name: "an inference server of the pool")
        }
        guard let local else { return InferencePool(endpoints: endpoints) }
        return InferencePool(endpoints: endpoints, beside: local.model, named: local.name)
    }

    /// The OpenAI-compatible endpoint `--<option>-url`, `--<option>-model` and
    /// `--<option>-key-file` (else `$<keyVariable>`) configure; nil when no URL is given.
    static func configuredEndpoint(_ arguments: Arguments, option: String, keyVariable: String, name: String) throws
        -> OpenAICompatibleModel.Endpoint?
    {
        guard let text = arguments.string("\(option)-url") else {
            if arguments.string("\(option)-model") != nil || arguments.string("\(option)-key-file") != nil {
                throw UsageError(description: "--\(option)-model and --\(option)-key-file need --\(option)-url")
            }
            return nil
        }
        return try endpoint(
            url: text, arguments, option: option, urlOption: "\(option)-url", keyVariable: keyVariable, name: name)
    }

    /// The endpoint at `text`, with `--<option>-model` and `--<option>-key-file` (else
    /// `$<keyVariable>`).
    static func endpoint(
        url text: String, _ arguments: Arguments, option: String, urlOption: String, keyVariable: String, name: String
    ) throws -> OpenAICompatibleModel.Endpoint {
        guard let url = URL(string: text), let scheme = url.scheme, scheme == "http" || scheme == "https",
            url.host != nil
        else {
            let what = urlOption.hasSuffix("urls") ? "http(s) URLs" : "an http(s) URL"
            throw UsageError(description: "--\(urlOption) must be \(what) such as http://127.0.0.1:8081/v1")
        }
        guard let model = arguments.string("\(option)-model"), !model.isEmpty else {
            throw UsageError(description: "--\(urlOption) needs --\(option)-model (the model's name at that endpoint)")
        }
        var key = ProcessInfo.processInfo.environment[keyVariable]
        if let path = arguments.string("\(option)-key-file") {
            do {
                key = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            } catch {
                throw CommandFailure(
                    description: "cannot read --\(option)-key-file \(path): \(error.localizedDescription)")
            }
        }
        if key?.isEmpty == true { key = nil }
        return OpenAICompatibleModel.Endpoint(baseURL: url, model: model, apiKey: key, name: name)
    }

    /// The suggestions and the features' model with the fallback in, when the local model left
    /// none and one is configured; with a pool (`--pool-urls`), the pool in, holding the local
    /// model when there is one.
    static func withFallback(_ suggestions: Suggestions, _ arguments: Arguments) throws -> (
        Suggestions, String, InferencePool?
    ) {
        // (No local model under --no-suggestions or --canned-suggestions.)
        if arguments.string("pool-urls") != nil, let local = suggestions.model.model,
            let localName = suggestions.model.name, let pooled = try fallbackModel(arguments, local: (local, localName))
        {
            return replacing(
                suggestions, with: pooled, model: suggestions.model.withPool(pooled.model, name: pooled.name),
                status: "on (\(pooled.name): each request where there is most room)",
                sent: "to the pool's servers when they have more room than this one")
        }
        guard let fallback = try fallbackModel(arguments) else {
            return (suggestions, "off (nothing leaves this machine)", nil)
        }
        guard suggestions.suggester == nil, !arguments.has("no-suggestions") else {
            let reason =
                arguments.has("no-suggestions")
                ? "--no-suggestions turns the features off"
                : arguments.has("canned-suggestions")
                    ? "--canned-suggestions stands in for a model" : "the local model is there"
            return (suggestions, "\(fallback.name), unused: \(reason)", nil)
        }
        return replacing(
            suggestions, with: fallback, model: suggestions.model.withFallback(fallback.model, name: fallback.name),
            status: "from the fallback \(fallback.name) (the local model is unavailable)", sent: "there")
    }

    /// `suggestions` drafted by `other`, with the features on `model`; the lines that say so
    /// (`sent`: where what the features read goes).
    private static func replacing(
        _ suggestions: Suggestions, with other: (model: any LanguageModel, name: String, pool: InferencePool?),
        model: ServerModel, status: String, sent: String
    ) -> (Suggestions, String, InferencePool?) {
        var replaced = suggestions
        replaced.suggester = ModelSuggester(fallback: other.model, name: other.name)
        replaced.model = model
        replaced.status = status
        return (
            replaced,
            "\(other.name): the AI features send what they read (conversations, drafts, assistant chats) \(sent)",
            other.pool
        )
    }
}
