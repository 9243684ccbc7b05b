// swift-tools-version: 6.0
import CompilerPluginSupport
import Foundation
import PackageDescription

// The macro target links the toolchain's own SwiftSyntax (no outside package can be fetched):
// `<toolchain>/usr/lib/swift/host` holds its modules and shared libraries (see MACROS.md).
let toolchainHost: String = {
    var url = URL(fileURLWithPath: CommandLine.arguments.first ?? "/usr/bin/swift")
    url.resolveSymlinksInPath()
    // .../usr/bin/swift-package → .../usr/lib/swift/host
    let usr = url.deletingLastPathComponent().deletingLastPathComponent()
    let host = usr.appendingPathComponent("lib/swift/host").path
    if FileManager.default.fileExists(atPath: host + "/SwiftSyntax.swiftmodule") { return host }
    return "/opt/swift/usr/lib/swift/host"
}()

let syntaxLibraries = [
    "SwiftSyntax", "SwiftSyntaxMacros", "SwiftSyntaxBuilder", "SwiftDiagnostics", "SwiftParser",
    "SwiftBasicFormat", "SwiftOperators", "SwiftParserDiagnostics", "SwiftSyntaxMacroExpansion",
    "SwiftCompilerPluginMessageHandling",
]

let syntaxFlags: [SwiftSetting] = [.unsafeFlags(["-I", toolchainHost])]
let syntaxLinks: [LinkerSetting] = [
    .unsafeFlags(
        ["-L", toolchainHost, "-Xlinker", "-rpath", "-Xlinker", toolchainHost] + syntaxLibraries.map { "-l" + $0 })
]

// Numeric code is built for the machine it runs on (AVX2 / AVX-512 / VNNI where present).
let native: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "native", "-Xcc", "-march=native"])]
let common: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "Sotto",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FoundationModels", targets: ["FoundationModels"]),
        .executable(name: "sotto", targets: ["sotto"]),
    ],
    targets: [
        // C libraries from Debian, each behind its own system-library target.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
        .systemLibrary(name: "CPicoHTTPParser", providers: [.apt(["libh2o-dev"])]),

        // Inference engine.
        .target(name: "GGUF", swiftSettings: common),
        .target(
            name: "Kernels", dependencies: ["GGUF"],
            // The AVX-512 VNNI kernels, when the build machine (the target under -target-cpu native) has them.
            swiftSettings: common + native
                + ((try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)).map {
                    $0.contains(" avx512_vnni") && $0.contains(" avx512bw") && $0.contains(" avx512vl")
                } == true ? [.define("KERNELS_AVX512")] : [])),
        .target(name: "Tokenizers", dependencies: ["GGUF"], swiftSettings: common + native),
        .target(name: "ChatTemplates", swiftSettings: common),
        .target(
            name: "Inference", dependencies: ["GGUF", "Kernels", "Tokenizers", "ChatTemplates"],
            swiftSettings: common + native),
        .target(name: "Guidance", dependencies: ["Tokenizers"], swiftSettings: common + native),

        // Apple-compatible API.
        .macro(
            name: "FoundationModelsMacros", swiftSettings: common + syntaxFlags, linkerSettings: syntaxLinks),
        .target(
            name: "FoundationModels", dependencies: ["Inference", "Guidance", "FoundationModelsMacros"],
            swiftSettings: common),

        // Chat system.
        .target(name: "ChatStore", dependencies: ["CSQLite"], swiftSettings: common),
        .target(name: "HTTPCore", dependencies: ["CLibUV", "CPicoHTTPParser"], swiftSettings: common),
        .target(name: "ChatIntelligence", dependencies: ["FoundationModels"], swiftSettings: common),
        .target(
            name: "Server", dependencies: ["ChatStore", "ChatIntelligence", "HTTPCore", "CSodium"],
            resources: [.copy("Web")], swiftSettings: common),

        .executableTarget(
            name: "sotto", dependencies: ["Inference", "FoundationModels", "Server", "ChatStore"],
            swiftSettings: common),

        .testTarget(name: "GGUFTests", dependencies: ["GGUF"], swiftSettings: common),
        .testTarget(name: "KernelsTests", dependencies: ["Kernels"], swiftSettings: common + native),
        .testTarget(
            name: "TokenizersTests", dependencies: ["Tokenizers"], resources: [.copy("Fixtures")], swiftSettings: common
        ),
        .testTarget(
            name: "ChatTemplatesTests", dependencies: ["ChatTemplates"], resources: [.copy("Fixtures")],
            swiftSettings: common),
        .testTarget(
            name: "InferenceTests", dependencies: ["Inference"], resources: [.copy("Fixtures")], swiftSettings: common),
        .testTarget(name: "GuidanceTests", dependencies: ["Guidance"], swiftSettings: common),
        .testTarget(
            name: "FoundationModelsMacrosTests", dependencies: ["FoundationModelsMacros"],
            swiftSettings: common + syntaxFlags, linkerSettings: syntaxLinks),
        .testTarget(name: "FoundationModelsTests", dependencies: ["FoundationModels"], swiftSettings: common),
        .testTarget(
            name: "ChatIntelligenceTests", dependencies: ["ChatIntelligence"], resources: [.copy("Fixtures")],
            swiftSettings: common),
        .testTarget(name: "ChatStoreTests", dependencies: ["ChatStore", "CSQLite"], swiftSettings: common),
        .testTarget(name: "HTTPCoreTests", dependencies: ["HTTPCore"], swiftSettings: common),
        .testTarget(name: "ServerTests", dependencies: ["Server", "HTTPCore"], swiftSettings: common),
        .testTarget(name: "SottoCLITests", dependencies: ["sotto", "Inference"], swiftSettings: common),
    ],
    swiftLanguageModes: [.v6]
)
