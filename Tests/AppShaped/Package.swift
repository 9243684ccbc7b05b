// swift-tools-version: 6.2
import Foundation
import PackageDescription

// An app target as Xcode 26 makes one, over Sotto's `FoundationModels`: the app code of
// Tests/AppPatterns (symlinked as Sources/AppCode) and a check that runs it on a model of its
// own. `scripts/test` builds it three times, in debug as an app is built, and runs the first:
//
//   SOTTO_APP_SETTINGS=xcode26 (default)  Xcode 26's app template: default isolation MainActor,
//                                         the Approachable Concurrency features, Swift 5 mode,
//                                         MemberImportVisibility
//   SOTTO_APP_SETTINGS=swift6             Swift 6, no default isolation
//   SOTTO_APP_SETTINGS=swift5             Swift 5, nothing else
let settings = ProcessInfo.processInfo.environment["SOTTO_APP_SETTINGS"] ?? "xcode26"

let swiftSettings: [SwiftSetting] =
    switch settings {
    case "swift6", "swift5": []
    default:
        [
            // SWIFT_DEFAULT_ACTOR_ISOLATION = MainActor
            .defaultIsolation(MainActor.self),
            // SWIFT_APPROACHABLE_CONCURRENCY = YES turns on these five.
            .enableUpcomingFeature("DisableOutwardActorInference"),
            .enableUpcomingFeature("GlobalActorIsolatedTypesUsability"),
            .enableUpcomingFeature("InferIsolatedConformances"),
            .enableUpcomingFeature("InferSendableFromCaptures"),
            .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
            // SWIFT_UPCOMING_FEATURE_MEMBER_IMPORT_VISIBILITY = YES
            .enableUpcomingFeature("MemberImportVisibility"),
        ]
    }

let package = Package(
    name: "AppShaped",
    dependencies: [.package(name: "Sotto", path: "../..")],
    targets: [
        .target(
            name: "AppCode", dependencies: [.product(name: "FoundationModels", package: "Sotto")],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "AppShapedCheck",
            dependencies: ["AppCode", .product(name: "FoundationModels", package: "Sotto")],
            swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [settings == "swift6" ? .v6 : .v5]
)
