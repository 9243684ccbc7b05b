import Foundation
import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros

@testable import FoundationModelsMacros

/// The result of expanding `@Generable`, `@Guide` or `@SessionPropertyEntry` in a piece of source
/// text.
struct Expansion {
    /// The source with every macro expanded.
    var source: String
    /// Diagnostics as "line:column: message".
    var diagnostics: [String]
}

/// Expands the FoundationModels macros in `source` the way the compiler would, with the
/// toolchain's SwiftSyntax.
func expand(_ source: String) -> Expansion {
    let file = Parser.parse(source: source)
    let context = BasicMacroExpansionContext(
        sourceFiles: [file: .init(moduleName: "TestModule", fullFilePath: "Test.swift")])
    let specs: [String: MacroSpec] = [
        "Generable": MacroSpec(type: GenerableMacro.self, conformances: ["Generable"]),
        "Guide": MacroSpec(type: GuideMacro.self),
        "SessionPropertyEntry": MacroSpec(type: SessionPropertyEntryMacro.self),
    ]
    let expanded = file.expand(
        macroSpecs: specs,
        contextGenerator: { syntax in
            BasicMacroExpansionContext(sharingWith: context, lexicalContext: syntax.allMacroLexicalContexts())
        },
        indentationWidth: .spaces(4))
    // Macros see detached copies of nodes; the context maps them back to the original file.
    let diagnostics = context.diagnostics.map { diagnostic -> String in
        guard let location = context.location(of: diagnostic.node, at: .afterLeadingTrivia, filePathMode: .fileID)
        else {
            return "?:?: \(diagnostic.message)"
        }
        return "\(location.line.trimmedDescription):\(location.column.trimmedDescription): \(diagnostic.message)"
    }
    return Expansion(source: expanded.description.trimmingCharacters(in: .newlines), diagnostics: diagnostics)
}
