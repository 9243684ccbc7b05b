// swift-tools-version: 6.2
import CompilerPluginSupport
import Foundation
import PackageDescription

// The macro target links the toolchain's own SwiftSyntax (no outside package can be fetched):
// `<toolchain>/usr/lib/swift/host` holds its modules and shared libraries (see MACROS.md). The
// toolchain is the one evaluating this manifest: the manifest runs as a program of its own (so
// `CommandLine.arguments[0]` is that program, not `swift`), linked against the toolchain's
// `usr/lib/swift/pm/ManifestAPI/libPackageDescription.so`, whose path the process's memory map
// gives. Elsewhere (no /proc) the `swift` found on PATH says where the toolchain is.
let toolchainHost: String = {
    func host(fromUsr usr: URL) -> String? {
        let host = usr.appendingPathComponent("lib/swift/host").path
        return FileManager.default.fileExists(atPath: host + "/SwiftSyntax.swiftmodule") ? host : nil
    }
    if let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8),
        let line = maps.split(separator: "\n").first(where: { $0.hasSuffix("/libPackageDescription.so") }),
        let start = line.firstIndex(of: "/")
    {
        // .../usr/lib/swift/pm/ManifestAPI/libPackageDescription.so → .../usr
        var usr = URL(fileURLWithPath: String(line[start...]))
        for _ in 0..<5 { usr.deleteLastPathComponent() }
        if let found = host(fromUsr: usr) { return found }
    }
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
        var swift = URL(fileURLWithPath: String(directory)).appendingPathComponent("swift")
        guard FileManager.default.isExecutableFile(atPath: swift.path) else { continue }
        swift.resolveSymlinksInPath()
        // .../usr/bin/swift → .../usr
        if let found = host(fromUsr: swift.deletingLastPathComponent().deletingLastPathComponent()) { return found }
    }
    // Nothing found: the macro target then fails to build with "no such module 'SwiftSyntax'".
    return "/toolchain-not-found/usr/lib/swift/host"
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
        // Apple's API (`import FoundationModels`), with the engine-service client that runs
        // `SystemLanguageModel` linked in beside it (apps never import it; see EngineClient).
        .library(name: "FoundationModels", targets: ["FoundationModels", "EngineClient"]),
        .executable(name: "sotto", targets: ["sotto"]),
        .executable(name: "sotto-loadgen", targets: ["LoadGenerator"]),
    ],
    targets: [
        // C libraries from Debian, each behind its own system-library target.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPostgreSQL", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
        .systemLibrary(name: "CPicoHTTPParser", providers: [.apt(["libh2o-dev"])]),
        .systemLibrary(name: "CCPUID"),
        .systemLibrary(name: "CTesseract", pkgConfig: "tesseract", providers: [.apt(["libtesseract-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
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
        // Speech to text: Whisper (CTranslate2's model.bin) on the same kernels, and the audio it reads.
        .target(name: "AudioDecoding", swiftSettings: common),
        .target(
            name: "Whisper", dependencies: ["Kernels", "TensorFormats", "Tokenizers", "CZlib"], swiftSettings: common),

        // Apple-compatible API.
        .macro(
            name: "FoundationModelsMacros", swiftSettings: common + syntaxFlags, linkerSettings: syntaxLinks),
        // Apple's API and the iOS 27 model seam, nothing else: no engine, no socket, no data
        // directory. What runs `SystemLanguageModel` is found at run time (SystemModelBackend).
        .target(
            name: "FoundationModels",
            dependencies: ["FoundationModelsMacros", "FoundationCompat", "Digests", "JSONSyntax"],
            swiftSettings: common),
        // Foundation API that Apple's platforms have and Linux's Foundation lacks, met in the
        // same files as Foundation Models code (`String(localized:)`); FoundationModels
        // re-exports it.
        .target(name: "FoundationCompat", swiftSettings: common),
        // The client of the engine service (`sotto engine`): its wire protocol, the Unix socket,
        // the launcher, model names resolved by ModelStore and watched for with inotify. It is
        // the backend of `SystemLanguageModel` in every app that links the product.
        .target(name: "EngineClient", dependencies: ["FoundationModels", "ModelStore"], swiftSettings: common),

        // Sotto's local engine as an executor of the seam: prompts, KV slots, constrained decoding,
        // tool calls, and images read by OCR.
        .target(
            name: "LocalEngine",
            dependencies: [
                "FoundationModels", "EngineClient", "Inference", "Guidance", "Tokenizers", "ChatTemplates", "GGUF",
                "ModelStore", "Digests", "CTesseract", "Executors",
            ],
            swiftSettings: common),

        // The engine service (`sotto engine`): the local engine behind a Unix socket, for apps.
        .target(
            name: "EngineService", dependencies: ["FoundationModels", "EngineClient", "Executors", "LocalEngine"],
            swiftSettings: common),

        // A model for FoundationModels behind any OpenAI-compatible endpoint (the hybrid fallback).
        // OpenAI's chat-completion wire types, read and written by the server's OpenAI API and by
        // OpenAIModel, the client of such an endpoint.
        .target(name: "OpenAIWire", swiftSettings: common),
        .target(name: "OpenAIModel", dependencies: ["FoundationModels", "OpenAIWire"], swiftSettings: common),

        // Chat system.
        .target(
            name: "ChatStore", dependencies: ["CSQLite", "CPostgreSQL", "Digests", "Executors", "JSONSyntax"],
            swiftSettings: common),
        .target(name: "HTTPCore", dependencies: ["CLibUV", "CPicoHTTPParser"], swiftSettings: common),
        .target(name: "ChatIntelligence", dependencies: ["FoundationModels"], swiftSettings: common),
        // Markdown to safe HTML (cmark-gfm), for the assistant's answers.
        .target(name: "Markdown", dependencies: ["CCMarkGFM"], swiftSettings: common),
        // What the server's products share: routes and their OpenAPI description, errors, JSON
        // bodies, rate limits and CORS, sign-in tokens, the one model every feature uses and the
        // model executors.
        .target(
            name: "ServerKit",
            dependencies: [
                "ChatStore", "ChatIntelligence", "FoundationModels", "ModelStore", "HTTPCore", "CSodium", "JSONSyntax",
                "Executors", "Digests",
            ],
            swiftSettings: common),
        // The OpenAI-compatible API: /v1/models, /v1/chat/completions, /v1/audio/transcriptions.
        .target(
            name: "OpenAIServer",
            dependencies: [
                "ServerKit", "OpenAIWire", "FoundationModels", "HTTPCore", "Whisper", "AudioDecoding", "Executors",
            ],
            swiftSettings: common),
        // The private assistant: its routes under /api/assistant/, its sessions and turns, images.
        .target(
            name: "AssistantServer",
            dependencies: [
                "ServerKit", "ChatStore", "FoundationModels", "HTTPCore", "Markdown",
            ],
            swiftSettings: common),
        // The chat, and the server that serves it with the assistant, the OpenAI API and the web app.
        .target(
            name: "Server",
            dependencies: [
                "ServerKit", "OpenAIServer", "AssistantServer", "ChatStore", "ChatIntelligence", "FoundationModels",
                "ModelStore", "Digests", "HTTPCore", "CSodium", "JSONSyntax",
            ],
            resources: [.copy("Web")], swiftSettings: common),

        .executableTarget(
            name: "sotto",
            dependencies: [
                "Inference", "Kernels", "ModelStore", "Server", "ServerKit", "OpenAIServer", "AssistantServer",
                "ChatStore",
                "FoundationModels", "LocalEngine", "EngineService", "OpenAIModel", "Whisper", "AudioDecoding",
            ],
            swiftSettings: common),

        // The load generator `scripts/loadtest` drives: WebSocket clients, senders and attackers on
        // libuv loops, so the figures measure the server rather than a Python event loop.
        .target(name: "LoadGeneration", dependencies: ["CLibUV"], swiftSettings: common),
        .executableTarget(name: "LoadGenerator", dependencies: ["LoadGeneration"], swiftSettings: common),

        // What the test targets share: finding models through ModelStore, temporary data directories.
        .target(name: "TestSupport", dependencies: ["ModelStore"], path: "Tests/TestSupport", swiftSettings: common),
        // An app's code written for Apple's framework (its models, view model, tool, a model of
        // its own, Apple's utilities' patterns), compiled here in Swift 6 and by
        // Tests/AppShaped with Xcode 26's app settings; AppPatternsTests runs it.
        .target(
            name: "AppPatterns", dependencies: ["FoundationModels"],
            path: "Tests/AppPatterns"),
        // The @Generable types the FoundationModels and LocalEngine tests share.
        .target(
            name: "GenerableFixtures", dependencies: ["FoundationModels"], path: "Tests/GenerableFixtures",
            swiftSettings: common),

        .testTarget(name: "DigestsTests", dependencies: ["Digests", "TestSupport"], swiftSettings: common),
        .testTarget(name: "ExecutorsTests", dependencies: ["Executors"], swiftSettings: common),
        .testTarget(
            name: "FoundationCompatTests", dependencies: ["FoundationCompat", "TestSupport"], swiftSettings: common),
        .testTarget(name: "JSONSyntaxTests", dependencies: ["JSONSyntax", "TestSupport"], swiftSettings: common),
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
            name: "ChatTemplatesTests", dependencies: ["ChatTemplates", "TestSupport"], resources: [.copy("Fixtures")],
            swiftSettings: common),
        .testTarget(
            name: "InferenceTests",
            dependencies: [
                "Inference", "ChatTemplates", "GGUF", "Kernels", "Tokenizers", "Executors", "TestSupport",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: common),
        .testTarget(
            name: "WhisperTests", dependencies: ["Whisper", "AudioDecoding", "Kernels", "TestSupport"],
            resources: [.copy("Fixtures")], swiftSettings: common),
        .testTarget(
            name: "GuidanceTests", dependencies: ["Guidance", "GGUF", "Tokenizers", "TestSupport"],
            swiftSettings: common),
        .testTarget(
            name: "FoundationModelsMacrosTests", dependencies: ["FoundationModelsMacros", "TestSupport"],
            swiftSettings: common + syntaxFlags, linkerSettings: syntaxLinks),
        .testTarget(
            name: "FoundationModelsTests",
            dependencies: ["FoundationModels", "GenerableFixtures", "TestSupport"],
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
            name: "AppPatternsTests",
            dependencies: [
                "AppPatterns", "FoundationModels", "ChatStore", "LocalEngine", "Server", "TestSupport",
            ],
            swiftSettings: common),
        .testTarget(
            name: "EngineClientTests",
            dependencies: ["EngineClient", "FoundationModels", "GenerableFixtures", "ModelStore", "TestSupport"],
            swiftSettings: common),
        .testTarget(
            name: "EngineServiceTests",
            dependencies: [
                "EngineService", "EngineClient", "LocalEngine", "FoundationModels", "ModelStore", "TestSupport",
            ],
            swiftSettings: common),
        .testTarget(
            name: "ChatIntelligenceTests",
            dependencies: [
                "ChatIntelligence", "EngineClient", "FoundationModels", "Guidance", "LocalEngine", "ModelStore",
                "TestSupport",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: common),
        .testTarget(
            name: "ChatStoreTests", dependencies: ["ChatStore", "CSQLite", "TestSupport"], swiftSettings: common),
        .testTarget(name: "MarkdownTests", dependencies: ["Markdown", "TestSupport"], swiftSettings: common),
        .testTarget(name: "HTTPCoreTests", dependencies: ["HTTPCore", "TestSupport"], swiftSettings: common),
        .testTarget(
            name: "LoadGenerationTests", dependencies: ["LoadGeneration", "TestSupport"], swiftSettings: common),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "Server", "ServerKit", "OpenAIServer", "AssistantServer", "HTTPCore", "ChatIntelligence", "ChatStore",
                "CSodium", "FoundationModels", "LocalEngine", "ModelStore", "TestSupport",
            ],
            swiftSettings: common),
        .testTarget(name: "OpenAIWireTests", dependencies: ["OpenAIWire", "TestSupport"], swiftSettings: common),
        .testTarget(
            name: "OpenAIModelTests",
            dependencies: [
                "OpenAIModel", "Server", "ServerKit", "ChatStore", "FoundationModels", "HTTPCore", "LocalEngine",
                "TestSupport",
            ],
            swiftSettings: common),
        .testTarget(
            name: "SottoCLITests",
            dependencies: ["sotto", "EngineClient", "FoundationModels", "Inference", "ModelStore", "TestSupport"],
            swiftSettings: common),
    ],
    swiftLanguageModes: [.v6]
)
