import Foundation
import OpenAIModel
import Server

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
        """

    /// The fallback configured by the arguments, named as the web app shows it; nil when none is.
    static func fallbackModel(_ arguments: Arguments) throws -> (model: OpenAICompatibleModel, name: String)? {
        guard
            let endpoint = try configuredEndpoint(
                arguments, option: "fallback", keyVariable: "SOTTO_FALLBACK_KEY", name: "the fallback server")
        else { return nil }
        // The name is shown (the page, each result, the log) and stored (assistant messages):
        // credentials in the URL stay in the endpoint, where the request is made.
        return (OpenAICompatibleModel(endpoint: endpoint), "\(endpoint.model) at \(endpoint.displayURL)")
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
        guard let url = URL(string: text), let scheme = url.scheme, scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw UsageError(description: "--\(option)-url must be an http(s) URL such as http://127.0.0.1:8081/v1")
        }
        guard let model = arguments.string("\(option)-model"), !model.isEmpty else {
            throw UsageError(description: "--\(option)-url needs --\(option)-model (the model's name at that endpoint)")
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
    /// none and one is configured.
    static func withFallback(_ suggestions: Suggestions, _ arguments: Arguments) throws -> (Suggestions, String) {
        guard let fallback = try fallbackModel(arguments) else {
            return (suggestions, "off (nothing leaves this machine)")
        }
        guard suggestions.suggester == nil, !arguments.has("no-suggestions") else {
            let reason =
                arguments.has("no-suggestions")
                ? "--no-suggestions turns the features off"
                : arguments.has("canned-suggestions")
                    ? "--canned-suggestions stands in for a model" : "the local model is there"
            return (suggestions, "\(fallback.name), unused: \(reason)")
        }
        var replaced = suggestions
        replaced.suggester = ModelSuggester(fallback: fallback.model, name: fallback.name)
        replaced.model = suggestions.model.withFallback(fallback.model, name: fallback.name)
        replaced.status = "from the fallback \(fallback.name) (the local model is unavailable)"
        return (
            replaced,
            "\(fallback.name): the AI features send what they read (conversations, drafts, assistant chats) there"
        )
    }
}
