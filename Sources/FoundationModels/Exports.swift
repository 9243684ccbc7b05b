// As on Apple's SDK, `import FoundationModels` makes `@Observable` and the rest of Observation
// available: apps observe sessions and models without importing it themselves.
@_exported import Observation
