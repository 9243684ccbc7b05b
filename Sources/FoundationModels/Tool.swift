/// A capability a model can use while it responds: it calls the tool with arguments it
/// generates, reads the output, and continues.
///
/// ```swift
/// struct WeatherTool: Tool {
///     let name = "getWeather"
///     let description = "Gets the current temperature in a city."
///
///     @Generable
///     struct Arguments {
///         @Guide(description: "The city")
///         var city: String
///     }
///
///     func call(arguments: Arguments) async throws -> String {
///         "It is 21 °C in \(arguments.city)."
///     }
/// }
/// ```
///
/// A tool may be called several times in one response, and concurrently with itself and with
/// other tools.
public protocol Tool<Arguments, Output>: Sendable {
    /// What the tool returns; usually a `String` or a `Generable` value.
    associatedtype Output: PromptRepresentable
    /// The arguments the model generates for a call; usually a `@Generable` struct.
    associatedtype Arguments: ConvertibleFromGeneratedContent

    /// The tool's name, as the model sees it. Defaults to the type name.
    var name: String { get }
    /// What the tool does, in a sentence the model reads to decide when to call it.
    var description: String { get }
    /// The schema of ``Arguments``. Defaults to `Arguments.generationSchema` when the arguments
    /// are `Generable`.
    var parameters: GenerationSchema { get }
    /// Whether the tool's definition goes into the instructions. Defaults to true.
    var includesSchemaInInstructions: Bool { get }

    /// Runs the tool.
    func call(arguments: Arguments) async throws -> Output
}

extension Tool {
    public var name: String { String(describing: Self.self) }

    public var includesSchemaInInstructions: Bool { true }
}

extension Tool where Arguments: Generable {
    public var parameters: GenerationSchema { Arguments.generationSchema }
}

extension Tool {
    /// Decodes `arguments`, calls the tool, and returns its output as transcript segments.
    package func invoke(with arguments: GeneratedContent) async throws -> [Transcript.Segment] {
        let decoded = try Arguments(arguments)
        return try await call(arguments: decoded).promptRepresentation.segments
    }
}
