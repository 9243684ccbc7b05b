import FoundationModels

/// The register replies are drafted in (the server's API takes it as `?tone=`).
///
/// Generable: the reply schemas open with a `tone` field the model fills in before the replies,
/// so that it commits to the register the prompt asks for and writes the replies after it.
@Generable(description: "The register of the replies")
public enum ReplyTone: String, Sendable, Hashable, Codable, CaseIterable {
    case casual, formal
}
