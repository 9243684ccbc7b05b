import Executors

/// The threads the local engine's blocking work runs on, so that none of it holds one of Swift's
/// cooperative threads. A model's generation runs on its engine's own thread
/// (``Inference/GenerationEngine``), OCR on the recognizer's (``TextRecognizer``).
enum EngineThreads {
    /// Loading a model's weights: mapping, checking, repacking (seconds, one model at a time).
    static let loading = ThreadExecutor(name: "sotto.load")
    /// Short blocking work a request waits for: reading a model's header, building the
    /// vocabulary index and grammars of constrained decoding.
    static let preparation = ThreadExecutor(name: "sotto.prepare")
}
