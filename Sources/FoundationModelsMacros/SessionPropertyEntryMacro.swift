import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@SessionPropertyEntry`: turns `var name: Type = defaultValue` in an extension of
/// `SessionPropertyValues` into a custom session property. The peer role writes the key (a
/// `SessionPropertyKey` whose default value is the initializer); the accessor role reads and
/// writes the value through the container's subscript with that key.
public struct SessionPropertyEntryMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let entry = Entry(declaration) else { return [] }
        return [
            "get { self[\(raw: entry.keyName).self] }",
            "set { self[\(raw: entry.keyName).self] = newValue }",
        ]
    }

    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let entry = Entry(declaration) else {
            context.diagnose(MacroDiagnostic.entryNeedsVariable.at(node))
            return []
        }
        guard let initializer = entry.initializer else {
            context.diagnose(MacroDiagnostic.entryNeedsDefault.at(declaration))
            return []
        }
        // `nonisolated`: in a target whose default isolation is the main actor the key would
        // otherwise be main-actor isolated, and `SessionPropertyKey` asks for a `Sendable`
        // metatype. A computed default (with its type written) is read afresh each time, as
        // the initializer would be; without a type, a constant lets Swift infer it.
        let defaultValue: DeclSyntax =
            if let type = entry.type {
                "static var defaultValue: \(type) { \(initializer) }"
            } else {
                "static let defaultValue = \(initializer)"
            }
        return [
            """
            nonisolated private struct \(raw: entry.keyName): FoundationModels.SessionPropertyKey {
                \(defaultValue)
            }
            """
        ]
    }

    /// The property the macro is attached to.
    private struct Entry {
        let keyName: String
        let type: TypeSyntax?
        let initializer: ExprSyntax?

        init?(_ declaration: some DeclSyntaxProtocol) {
            guard let variable = declaration.as(VariableDeclSyntax.self), variable.bindings.count == 1,
                let binding = variable.bindings.first,
                let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier
            else { return nil }
            keyName = "__Key_" + name.text.filter { $0 != "`" }
            type = binding.typeAnnotation?.type.trimmed
            initializer = binding.initializer?.value.trimmed
        }
    }
}
