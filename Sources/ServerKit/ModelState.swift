import ChatIntelligence
import Foundation

/// The model as the web app sees it.
package struct ModelState: Encodable, Sendable {
    package struct Tool: Encodable, Sendable {
        var id: String
        var title: String
    }

    /// Whether the features work: the local model is there, or the fallback stands in for it.
    package var available: Bool
    /// The model the features use (the fallback's "m at http://host/v1" when it stands in).
    package var name: String?
    /// True when the features run on the fallback: what is written is sent to its endpoint.
    package var fallback: Bool
    /// True when the features run on the local model and a pool of inference servers beside it
    /// (`sotto serve --pool-urls` with a local model): what is written may be sent to them.
    package var pool: Bool
    /// Why the local model is unavailable: `not_downloaded`, `machine_too_small`, `turned_off` or
    /// `no_model` (also when the fallback stands in for it).
    package var reason: String?
    /// What is wrong with the local model and what to do about it; empty when it is there.
    package var message: String
    package var tools: [Tool]
    /// The languages offered: those the local model supports, or all of them for a fallback
    /// (whose languages the server cannot know).
    package var languages: [TranslationLanguage]

    package init(_ model: ServerModel) {
        let choice = model.choice
        available = choice != nil
        name = choice?.name
        pool = model.poolHoldsLocal
        fallback = choice != nil && choice?.local == nil && !pool
        reason = model.unavailability?.rawValue
        message = model.message
        tools = WritingTool.allCases.map { .init(id: $0.rawValue, title: $0.title) }
        languages = model.model.map { TranslationLanguage.supported(by: $0) } ?? TranslationLanguage.all
    }
}
