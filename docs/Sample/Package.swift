// swift-tools-version: 6.0
import PackageDescription

// A small app written as an iOS 27 app would use Apple's Foundation Models framework, built on
// Linux against Sotto's `FoundationModels` (scripts/test compiles it, in debug as an app's
// developer would, and runs it). On Apple platforms the same sources build with the system
// framework: drop the dependency.
let package = Package(
    name: "SottoSample",
    dependencies: [.package(name: "Sotto", path: "../..")],
    targets: [
        // A session on SystemLanguageModel.default with an image prompt, streamed, with usage.
        .executableTarget(
            name: "ImageNotes", dependencies: [.product(name: "FoundationModels", package: "Sotto")]),
        // Reply suggestions as a chat app's view model asks for them, timed (scripts/bench-app
        // runs it from a debug and a release build side by side).
        .executableTarget(
            name: "ReplySuggestions", dependencies: [.product(name: "FoundationModels", package: "Sotto")]),
    ],
    swiftLanguageModes: [.v6]
)
