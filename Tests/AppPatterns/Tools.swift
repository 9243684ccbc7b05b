import Foundation
import FoundationModels

/// A tool the planner's model may call: the weather forecast for a city (canned here, as an
/// app's offline fallback would be).
public struct ForecastTool: Tool {
    public let name = "getForecast"
    public let description = "Gets the weather forecast for a city."

    public init() {}

    @Generable
    public struct Arguments {
        @Guide(description: "The city to get the forecast for")
        public var city: String
    }

    public func call(arguments: Arguments) async throws -> String {
        let forecasts = ["Lisbon": "sunny, 24 °C", "Porto": "cloudy, 18 °C", "Coimbra": "rain, 15 °C"]
        guard let forecast = forecasts[arguments.city] else {
            throw ForecastError.unknownCity(arguments.city)
        }
        return "\(arguments.city): \(forecast)"
    }

    /// Why a forecast is missing, in the user's language.
    public enum ForecastError: Error, LocalizedError {
        case unknownCity(String)

        public var errorDescription: String? {
            switch self {
            case .unknownCity(let city): String(localized: "There is no forecast for \(city).")
            }
        }
    }
}
