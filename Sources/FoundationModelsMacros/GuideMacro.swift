import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Guide(description:_:)`: a marker read by `@Generable`, which copies its arguments into the
/// property's schema entry. It writes no code itself; it only checks where it is used.
public struct GuideMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            !variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) }),
            !variable.bindings.contains(where: { $0.accessorBlock.map(StoredProperty.isComputed) ?? false })
        else {
            context.diagnose(MacroDiagnostic.guideNotOnStoredProperty.at(node))
            return []
        }
        return []
    }
}
