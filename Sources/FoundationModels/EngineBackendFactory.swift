/// Creates the engine backend for a model file.
///
/// This is the seam between the API and Sotto's inference engine: the integration replaces the
/// body with one that opens the GGUF file with the Inference module and wraps it in a
/// ``LanguageModelBackend`` (with constrained decoding from the Guidance module).
package enum EngineBackendFactory {
    package static func makeBackend(modelPath: String, contextSize: Int) throws -> any LanguageModelBackend {
        throw LanguageModelSession.GenerationError.assetsUnavailable(
            .init(debugDescription: "The inference engine is not connected to FoundationModels yet (model \(modelPath))."))
    }
}
