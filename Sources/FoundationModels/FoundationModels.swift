// FoundationModels module.
