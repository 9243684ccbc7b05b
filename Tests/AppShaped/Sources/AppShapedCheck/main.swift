import AppCode
import Foundation
import FoundationModels

// Runs the app's code on its mock model, as the app's own tests would, and exits non-zero on
// the first thing that is not as expected. Prints what it checked.

var failures = 0
@MainActor func check(_ condition: Bool, _ what: String) {
    print((condition ? "ok   " : "FAIL ") + what)
    if !condition { failures += 1 }
}

let planJSON = """
    {"id": "x", "title": "Porto Weekend", "destination": "Porto", "days": 2, "dailyBudget": 90,
     "activities": [{"name": "Ribeira", "cost": "free", "hours": 2},
                    {"name": "Port cellar", "cost": {"paid": {"euros": 18}}, "hours": 1.5},
                    {"name": "Livraria", "cost": {"paid": {"euros": 8}}, "hours": 1}],
     "packingList": ["umbrella"], "ratings": [4, 5], "bookingCode": "OPO-123", "version": "v1",
     "pace": "relaxed"}
    """

// A view model with a PartiallyGenerated value, streamed from a @Generable type.
let planner = TripPlanner(model: MockModel(textResponse: planJSON))
await planner.plan("A weekend in Porto")
check(planner.plan?.destination == "Porto", "streamResponse(generating:) fills the @Observable planner")
check(planner.partialPlan?.activities?.count == 3, "the last snapshot has every activity")
check(planner.plan?.activities[1].cost == .paid(euros: 18), "an enum with associated values decodes")
check(planner.plan?.pace == .relaxed, "a nested @Generable enum decodes")

// A tool, then a structured answer.
let asking = TripPlanner(
    model: MockModel(events: [
        .toolCall(name: "getForecast", arguments: #"{"city": "Lisbon"}"#),
        .text(#"{"answer": "Sunny.", "confidence": 0.9}"#),
    ]))
let answer = try await asking.ask("Weather in Lisbon?")
check(answer.answer == "Sunny.", "respond(generating:) after a tool call")

// Apple's utilities' rolling window over a profile.
let recorder = TranscriptRecorder()
let profile = LanguageModelSession.Profile { Instructions("Be brief.") }
    .rollingWindow(entries: 2)
    .model(MockModel(textResponse: "OK", recorder: recorder))
let session = LanguageModelSession(profile: profile)
for prompt in ["one", "two", "three"] { _ = try await session.respond(to: prompt) }
check(recorder.transcripts.last?.count == 2, "the rolling window shows the model two entries")
check(session.transcript.count == 7, "the session keeps the whole transcript")

// Texts as the app writes them for Apple's platforms.
check(String(localized: "\(3) days in Porto") == "3 days in Porto", "String(localized:) with a value")

// The schema of a type with every guide.
let schema = String(decoding: try JSONEncoder().encode(TripPlan.generationSchema), as: UTF8.self)
check(schema.contains("Coimbra") && schema.contains("pattern"), "@Guide's anyOf and pattern are in the schema")

if failures > 0 {
    print("\(failures) check(s) failed")
    exit(1)
}
print("app-shaped checks passed")
