import Executors

/// The threads the server's model work runs on, one per kind of work, so none of it lands on
/// Swift's cooperative pool (whose few threads anything in the process may be using) and a long
/// summary never holds up the chips.
package enum ModelExecutor {
    /// Reply suggestions, one generation at a time (`SuggestionScheduler`).
    package static let suggestions = ThreadExecutor(name: "sotto.suggestions")
    /// Writing tools, translations, summaries and the other requested jobs (`ModelJobs`).
    package static let jobs = ThreadExecutor(name: "sotto.model-jobs")
    /// The assistant's answers, token counts and titles (`AssistantEngine`).
    package static let assistant = ThreadExecutor(name: "sotto.assistant")
    /// The OpenAI-compatible API's completions (`OpenAIAPI`): their tasks mostly wait for the
    /// engine and the client, so they share one thread.
    package static let completions = ThreadExecutor(name: "sotto.completions")
}
