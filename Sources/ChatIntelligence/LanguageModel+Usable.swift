import FoundationModels

extension LanguageModel {
    /// Whether requests can go to the model now: a system model's availability (checking does
    /// not load it). Any other model of the seam (a remote one) is taken to be there: a request it
    /// cannot answer fails with its error.
    var isUsable: Bool { (self as? SystemLanguageModel)?.isAvailable ?? true }
}
