/// The register replies are drafted in (the server's API takes it as `?tone=`).
public enum ReplyTone: String, Sendable, Hashable, Codable, CaseIterable {
    case casual, formal
}
