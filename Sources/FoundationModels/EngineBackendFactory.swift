/// Creates the engine backend for a model file: the seam between the API and Sotto's inference
/// engine.
package enum EngineBackendFactory {
    /// A backend that runs the GGUF model at `modelPath` (loaded once per process and shared)
    /// with a context window of `contextSize` tokens, capped at the model's own; repacked weights
    /// are kept in `packedWeightsDirectory` (nil: no cache).
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/assetsUnavailable(_:)`` when the file
    ///   cannot be loaded.
    package static func makeBackend(modelPath: String, contextSize: Int, packedWeightsDirectory: String?) throws
        -> any LanguageModelBackend
    {
        try EngineBackend(
            modelPath: modelPath, contextSize: contextSize, packedWeightsDirectory: packedWeightsDirectory)
    }
}
