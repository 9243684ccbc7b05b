import Foundation
import FoundationModels
import Observation

/// The view model of the planner screen: it streams a plan into `partialPlan` for the view to
/// show as it fills in, answers questions with the forecast tool, and keeps the session.
@Observable
public final class TripPlanner {
    /// The plan so far, while it is generated (every property optional).
    public private(set) var partialPlan: TripPlan.PartiallyGenerated?
    /// The finished plan.
    public private(set) var plan: TripPlan?
    public private(set) var isGenerating = false
    public private(set) var errorMessage: String?

    private let session: LanguageModelSession

    public init(model: some LanguageModel) {
        session = LanguageModelSession(model: model, tools: [ForecastTool()]) {
            "You plan short trips in Portugal."
            "Use the forecast tool when the weather matters."
        }
    }

    /// Streams a plan for `request`, updating `partialPlan` with every snapshot.
    public func plan(_ request: String) async {
        isGenerating = true
        defer { isGenerating = false }
        do {
            let stream = session.streamResponse(to: request, generating: TripPlan.self)
            for try await snapshot in stream {
                partialPlan = snapshot.content
            }
            plan = try await stream.collect().content
        } catch {
            errorMessage = Self.message(for: error)
        }
    }

    /// Answers a question in one structured reply.
    public func ask(_ question: String) async throws -> QuickAnswer {
        try await session.respond(to: question, generating: QuickAnswer.self).content
    }

    /// Answers in free text.
    public func chat(_ message: String) async throws -> String {
        try await session.respond(to: message).content
    }

    /// What the user is shown when generation fails.
    static func message(for error: any Error) -> String {
        switch error {
        case let error as LanguageModelSession.GenerationError:
            String(localized: "The model could not answer: \(error.localizedDescription)")
        case let error as LanguageModelSession.ToolCallError:
            String(localized: "A tool failed: \(error.underlyingError.localizedDescription)")
        default:
            String(localized: "Something went wrong.")
        }
    }
}
