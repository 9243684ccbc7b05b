import Foundation
import FoundationModels

// The models of a trip-planning app, as an app target written for Apple's framework declares
// them: @Generable structs and enums, a nested type, a GenerationID for streaming, and @Guide
// with every kind of guide. Built here under three settings (see Tests/AppShaped/Package.swift):
// Xcode 26's app defaults (default isolation MainActor, Approachable Concurrency, Swift 5 mode),
// Swift 6 without default isolation, and plain Swift 5.

/// A plan for a trip, streamed into the planner's view as it is generated.
@Generable(description: "A plan for a short trip")
public struct TripPlan {
    /// Stays the same in every snapshot of a stream, so a list can animate it.
    public var id: GenerationID

    @Guide(description: "A short, catchy title")
    public var title: String

    @Guide(description: "The destination city", .anyOf(["Lisbon", "Porto", "Coimbra"]))
    public var destination: String

    @Guide(description: "How long the trip is, in days", .range(1...7))
    public var days: Int

    @Guide(description: "The budget per day in euros", .minimum(20), .maximum(500))
    public var dailyBudget: Double

    @Guide(description: "One activity for each morning, afternoon and evening", .count(3))
    public var activities: [Activity]

    @Guide(description: "Things to pack", .minimumCount(1), .maximumCount(5))
    public var packingList: [String]

    @Guide(description: "Ratings of the plan from 1 to 5", .count(1...3), .element(.range(1...5)))
    public var ratings: [Int]

    @Guide(description: "A booking code", #/[A-Z]{3}-[0-9]{3}/#)
    public var bookingCode: String

    @Guide(description: "The plan's version", .constant("v1"))
    public var version: String

    public var pace: Pace

    @Guide(description: "A tip for the traveller, if there is one worth giving")
    public var tip: String?

    /// Set by the app, not generated: left out of the schema and of `PartiallyGenerated`.
    public let createdBy = "TripPlanner"

    /// One activity of a day (a nested @Generable type).
    @Generable
    public struct Activity {
        @Guide(description: "What to do")
        public var name: String
        public var cost: Cost
        @Guide(description: "Hours it takes", .range(Float(0.5)...Float(6)))
        public var hours: Float
    }

    /// How busy the days are.
    @Generable
    public enum Pace {
        case relaxed, balanced, packed
    }
}

/// What an activity costs: nothing, or an amount (an enum with associated values).
@Generable
public enum Cost: Equatable {
    case free
    case paid(euros: Decimal)
}

/// A traveller's question the app answers with a short structured reply.
@Generable
public struct QuickAnswer {
    @Guide(description: "The answer, in one sentence")
    public var answer: String
    @Guide(description: "How sure the model is, from 0 to 1", .range(0...1))
    public var confidence: Double
}
