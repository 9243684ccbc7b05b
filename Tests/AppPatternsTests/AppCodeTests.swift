import AppPatterns
import Foundation
import FoundationModels
import Observation
import Synchronization
import TestSupport
import Testing

/// The app's planner view model on the mock model: it streams a structured plan, calls its tool
/// and reports through Observation.
@Suite struct AppCodeTests {
    static let planJSON = """
        {"id": "x", "title": "Lisbon Light", "destination": "Lisbon", "days": 2, "dailyBudget": 80,
         "activities": [{"name": "Tram 28", "cost": {"paid": {"euros": 3}}, "hours": 1},
                        {"name": "Belém", "cost": "free", "hours": 3},
                        {"name": "Fado", "cost": {"paid": {"euros": 30}}, "hours": 2}],
         "packingList": ["shoes"], "ratings": [5], "bookingCode": "LIS-042", "version": "v1",
         "pace": "balanced", "tip": null}
        """

    @Test func thePlannerStreamsAPlanIntoItsObservableState() async throws {
        let planner = TripPlanner(model: MockModel(textResponse: Self.planJSON))
        let changed = Mutex(false)
        withObservationTracking {
            _ = planner.partialPlan
        } onChange: {
            changed.withLock { $0 = true }
        }
        await planner.plan("A weekend in Lisbon")
        #expect(planner.errorMessage == nil)
        #expect(changed.withLock { $0 })
        let plan = try #require(planner.plan)
        #expect(plan.destination == "Lisbon" && plan.days == 2 && plan.pace == .balanced)
        #expect(plan.activities.map(\.name) == ["Tram 28", "Belém", "Fado"])
        #expect(plan.activities[1].cost == .free)
        #expect(plan.createdBy == "TripPlanner")
        #expect(planner.partialPlan?.title == "Lisbon Light")
        #expect(!planner.isGenerating)
    }

    @Test func thePlannerCallsItsToolAndAnswers() async throws {
        let model = MockModel(events: [
            .toolCall(name: "getForecast", arguments: #"{"city": "Coimbra"}"#),
            .text(#"{"answer": "Pack an umbrella.", "confidence": 0.8}"#),
        ])
        let answer = try await TripPlanner(model: model).ask("Will it rain in Coimbra?")
        #expect(answer.answer == "Pack an umbrella.")
        #expect(answer.confidence == 0.8)
    }

    @Test func aToolErrorIsShownInTheUsersWords() async throws {
        let model = MockModel(events: [.toolCall(name: "getForecast", arguments: #"{"city": "Atlantis"}"#), .text("-")])
        let planner = TripPlanner(model: model)
        await planner.plan("Somewhere")
        #expect(planner.errorMessage == "A tool failed: There is no forecast for Atlantis.")
    }

    @Test(.onTestThreads) func theSchemaCarriesEveryGuide() throws {
        let json = String(decoding: try JSONEncoder().encode(TripPlan.generationSchema), as: UTF8.self)
        for fragment in ["Lisbon", "\"v1\"", "minItems", "maxItems", "minimum", "maximum", "pattern", "relaxed"] {
            #expect(json.contains(fragment), "\(fragment) is not in \(json)")
        }
    }
}
