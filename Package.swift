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

let common: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

// Nothing is built for the build machine's CPU: the product runs on any x86-64 (or ARM) CPU. The
// kernel sets for AVX-512 and AVX2 are modules of their own, each compiled for its instruction set
// (Swift has no per-function target attributes), and `Kernels` calls one only on a CPU that has it
// (`KernelSelection`). The portable set and everything else are compiled for the baseline.
#if arch(x86_64)
    let avx512: [SwiftSetting] = [.unsafeFlags(["-Xcc", "-march=x86-64-v4", "-Xcc", "-mavx512vnni"])]
    let avx2: [SwiftSetting] = [.unsafeFlags(["-Xcc", "-march=x86-64-v3"])]
#else
    let avx512: [SwiftSetting] = []
    let avx2: [SwiftSetting] = []
#endif

let package = Package(
    name: "Sotto",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FoundationModels", targets: ["FoundationModels"]),
        .executable(name: "sotto", targets: ["sotto"]),
        .executable(name: "sotto-loadgen", targets: ["LoadGenerator"]),
    ],
    targets: [
        // C libraries from Debian, each behind its own system-library target.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
        .systemLibrary(name: "CPicoHTTPParser", providers: [.apt(["libh2o-dev"])]),
        .systemLibrary(name: "CCPUID"),
        .systemLibrary(name: "CTesseract", pkgConfig: "tesseract", providers: [.apt(["libtesseract-dev"])]),
        .systemLibrary(
            name: "CCMarkGFM", pkgConfig: "libcmark-gfm",
            providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]),

        // Threads of their own for blocking work (loads, OCR, a model's forward passes), as Swift
        // executors: what blocks never holds one of the cooperative pool's threads.
        .target(name: "Executors", swiftSettings: common),
        // Hashes that are the same in every process: SHA-256 for downloads, FNV-1a for ids and keys.
        .target(name: "Digests", swiftSettings: common),
        // The data directory, model names and pulls.
        .target(name: "ModelStore", dependencies: ["Digests"], swiftSettings: common),

        // Inference engine.
        .target(name: "TensorFormats", swiftSettings: common),
        .target(name: "GGUF", dependencies: ["TensorFormats"], swiftSettings: common),
        .target(name: "KernelsCore", dependencies: ["TensorFormats"], swiftSettings: common),
        .target(name: "KernelsAVX512", dependencies: ["KernelsCore", "TensorFormats"], swiftSettings: common + avx512),
        .target(name: "KernelsAVX2", dependencies: ["KernelsCore", "TensorFormats"], swiftSettings: common + avx2),
        .target(name: "KernelsPortable", dependencies: ["KernelsCore", "TensorFormats"], swiftSettings: common),
        .target(
            name: "Kernels",
            dependencies: [
                "KernelsCore", "KernelsAVX512", "KernelsAVX2", "KernelsPortable", "TensorFormats", "CCPUID",
            ],
            swiftSettings: common),
        .target(name: "Tokenizers", dependencies: ["GGUF"], swiftSettings: common),
        // JSON's string literals, read the same way by the template engine and the streaming parser.
        .target(name: "JSONSyntax", swiftSettings: common),
        .target(name: "ChatTemplates", dependencies: ["JSONSyntax"], swiftSettings: common),
        .target(
            name: "Inference",
            dependencies: [
                "GGUF", "Kernels", "KernelsCore", "Tokenizers", "ChatTemplates", "Digests", "Executors",
            ],
            swiftSettings: common),
        .target(name: "Guidance", dependencies: ["Tokenizers"], swiftSettings: common),

        // Apple-compatible API.
        .macro(
            name: "FoundationModelsMacros", swiftSettings: common + syntaxFlags, linkerSettings: syntaxLinks),
        // Apple's API and the iOS 27 model seam; no engine code (the system model runs in the
        // engine service).
        .target(
            name: "FoundationModels", dependencies: ["FoundationModelsMacros", "ModelStore", "Digests", "JSONSyntax"],
            swiftSettings: common),

        // Sotto's local engine as an executor of the seam: prompts, KV slots, constrained decoding,
        // tool calls, and images read by OCR.
        .target(
            name: "LocalEngine",
            dependencies: [
                "FoundationModels", "Inference", "Guidance", "Tokenizers", "ChatTemplates", "GGUF", "ModelStore",
                "Digests", "CTesseract", "Executors",
            ],
            swiftSettings: common),

        // The engine service (`sotto engine`): the local engine behind a Unix socket, for apps.
        .target(name: "EngineService", dependencies: ["FoundationModels", "LocalEngine"], swiftSettings: common),

        // A model for FoundationModels behind any OpenAI-compatible endpoint (the hybrid fallback).
        .target(name: "OpenAIModel", dependencies: ["FoundationModels"], swiftSettings: common),

        // Chat system.
        .target(name: "ChatStore", dependencies: ["CSQLite", "JSONSyntax"], swiftSettings: common),
        .target(name: "HTTPCore", dependencies: ["CLibUV", "CPicoHTTPParser"], swiftSettings: common),
        .target(name: "ChatIntelligence", dependencies: ["FoundationModels"], swiftSettings: common),
        // Markdown to safe HTML (cmark-gfm), for the assistant's answers.
        .target(name: "Markdown", dependencies: ["CCMarkGFM"], swiftSettings: common),
        .target(
            name: "Server",
            dependencies: [
                "ChatStore", "ChatIntelligence", "FoundationModels", "ModelStore", "Digests", "HTTPCore", "CSodium",
                "Markdown", "JSONSyntax",
            ],
            resources: [.copy("Web")], swiftSettings: common),

        .executableTarget(
            name: "sotto",
            dependencies: [
                "Inference", "Kernels", "ModelStore", "Server", "ChatStore", "FoundationModels", "LocalEngine",
                "EngineService", "OpenAIModel",
            ],
            swiftSettings: common),

        // The load generator `scripts/loadtest` drives: WebSocket clients, senders and attackers on
        // libuv loops, so the figures measure the server rather than a Python event loop.
        .target(name: "LoadGeneration", dependencies: ["CLibUV"], swiftSettings: common),
        .executableTarget(name: "LoadGenerator", dependencies: ["LoadGeneration"], swiftSettings: common),

        // What the test targets share: finding models through ModelStore, temporary data directories.
        .target(name: "TestSupport", dependencies: ["ModelStore"], path: "Tests/TestSupport", swiftSettings: common),
        // The @Generable types the FoundationModels and LocalEngine tests share.
        .target(
            name: "GenerableFixtures", dependencies: ["FoundationModels"], path: "Tests/GenerableFixtures",
            swiftSettings: common),

        .testTarget(name: "ExecutorsTests", dependencies: ["Executors"], swiftSettings: common),
        .testTarget(name: "DigestsTests", dependencies: ["Digests"], swiftSettings: common),
        .testTarget(name: "JSONSyntaxTests", dependencies: ["JSONSyntax"], swiftSettings: common),
        .testTarget(
            name: "ModelStoreTests", dependencies: ["ModelStore", "Digests", "TestSupport"], swiftSettings: common),
        .testTarget(name: "GGUFTests", dependencies: ["GGUF", "TestSupport"], swiftSettings: common),
        .testTarget(
            name: "KernelsTests", dependencies: ["Kernels", "KernelsCore", "TensorFormats", "GGUF", "TestSupport"],
            swiftSettings: common),
        .testTarget(
            name: "TokenizersTests", dependencies: ["Tokenizers", "GGUF", "TestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: common),
        .testTarget(
            name: "ChatTemplatesTests", dependencies: ["ChatTemplates"], resources: [.copy("Fixtures")],
            swiftSettings: common),
        .testTarget(
            name: "InferenceTests",
            dependencies: [
                "Inference", "ChatTemplates", "GGUF", "Kernels", "Tokenizers", "Executors", "TestSupport",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: common),
        .testTarget(
            name: "GuidanceTests", dependencies: ["Guidance", "GGUF", "Tokenizers", "TestSupport"],
            swiftSettings: common),
        .testTarget(
            name: "FoundationModelsMacrosTests", dependencies: ["FoundationModelsMacros"],
            swiftSettings: common + syntaxFlags, linkerSettings: syntaxLinks),
        .testTarget(
            name: "FoundationModelsTests",
            dependencies: ["FoundationModels", "GenerableFixtures", "ModelStore", "TestSupport"],
            swiftSettings: common),
        .testTarget(
            name: "LocalEngineTests",
            dependencies: [
                "LocalEngine", "FoundationModels", "GenerableFixtures", "Guidance", "Inference", "Tokenizers",
                "TestSupport",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: common),
        .testTarget(
            name: "EngineServiceTests",
            dependencies: ["EngineService", "LocalEngine", "FoundationModels", "ModelStore", "TestSupport"],
            swiftSettings: common),
        .testTarget(
            name: "ChatIntelligenceTests",
            dependencies: [
                "ChatIntelligence", "FoundationModels", "Guidance", "LocalEngine", "ModelStore", "TestSupport",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: common),
        .testTarget(name: "ChatStoreTests", dependencies: ["ChatStore", "CSQLite"], swiftSettings: common),
        .testTarget(name: "MarkdownTests", dependencies: ["Markdown"], swiftSettings: common),
        .testTarget(name: "HTTPCoreTests", dependencies: ["HTTPCore", "TestSupport"], swiftSettings: common),
        .testTarget(name: "LoadGenerationTests", dependencies: ["LoadGeneration"], swiftSettings: common),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "Server", "HTTPCore", "ChatIntelligence", "ChatStore", "CSodium", "FoundationModels", "LocalEngine",
                "ModelStore", "TestSupport",
            ],
            swiftSettings: common),
        .testTarget(
            name: "OpenAIModelTests",
            dependencies: [
                "OpenAIModel", "Server", "ChatStore", "FoundationModels", "LocalEngine", "TestSupport",
            ],
            swiftSettings: common),
        .testTarget(
            name: "SottoCLITests",
            dependencies: ["sotto", "FoundationModels", "Inference", "ModelStore", "TestSupport"],
            swiftSettings: common),
    ],
    swiftLanguageModes: [.v6]
)
