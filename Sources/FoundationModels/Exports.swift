// `String(localized:)`, `String.LocalizationValue` and `LocalizedStringResource`, which Linux's
// Foundation lacks: files with Foundation Models code use them for their texts.
@_exported import FoundationCompat
// As on Apple's SDK, `import FoundationModels` makes `@Observable` and the rest of Observation
// available: apps observe sessions and models without importing it themselves.
@_exported import Observation
