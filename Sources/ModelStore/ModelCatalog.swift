/// The models Sotto knows how to fetch (the table in `MODELS.md`), the default first.
///
/// ```swift
/// ModelCatalog.knownIDs                      // ["qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", "smollm2-135m"]
/// ModelCatalog.model(id: "smollm2-135m")?.fileSize   // 98_362_432
/// ```
///
/// Where a model's file lives, and what a name the user typed means, is ``ModelStore``'s business.
public enum ModelCatalog {
    /// Every known model, the default first.
    public static let models: [CatalogModel] = CatalogModel.all

    /// The model used when `SOTTO_MODEL` is not set.
    public static let defaultModelID = "qwen2.5-coder-1.5b"

    /// The speech model used when none is named (`sotto transcribe`, `/v1/audio/transcriptions`).
    public static let defaultSpeechModelID = "whisper-base"

    /// Ids of every known model, the default first.
    public static var knownIDs: [String] { models.map(\.id) }

    /// The catalog entry with this id.
    public static func model(id: String) -> CatalogModel? {
        models.first { $0.id == id }
    }
}
