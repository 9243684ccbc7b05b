// The compiler plugin executable for `@Generable`, `@Guide` and `@SessionPropertyEntry`.
//
// The toolchain's SwiftSyntax has no `SwiftCompilerPlugin` module (the one that provides
// `CompilerPlugin` and its `@main`), so this file wires its three parts together directly:
// a provider that resolves macro type names, a connection over stdin/stdout, and the listener
// that answers the compiler's expansion requests.
@_spi(PluginMessage) import SwiftCompilerPluginMessageHandling
import SwiftSyntaxMacros

/// Resolves the type names written in `#externalMacro(module:type:)` to macro implementations.
struct FoundationModelsPlugin: PluginProvider {
    func resolveMacro(moduleName: String, typeName: String) throws -> any Macro.Type {
        switch typeName {
        case "GenerableMacro": return GenerableMacro.self
        case "GuideMacro": return GuideMacro.self
        case "SessionPropertyEntryMacro": return SessionPropertyEntryMacro.self
        default: throw PluginResolutionError(moduleName: moduleName, typeName: typeName)
        }
    }
}

/// The compiler asked for a macro type this plugin does not implement.
struct PluginResolutionError: Error, CustomStringConvertible {
    let moduleName: String
    let typeName: String
    var description: String { "FoundationModelsMacros has no macro named '\(moduleName).\(typeName)'" }
}

let listener = CompilerPluginMessageListener(
    connection: try StandardIOMessageConnection(), provider: FoundationModelsPlugin())
try listener.main()
