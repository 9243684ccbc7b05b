import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Generable(description:)`: makes a struct or enum `Generable`.
///
/// The member role writes `generationSchema`, `generatedContent` and (for structs)
/// `PartiallyGenerated`; the extension role adds the conformance and `init(_:)`. Diagnostics are
/// reported once, by the member role; on error neither role writes anything.
public struct GenerableMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let analysis = GenerableAnalysis(attribute: node, declaration: declaration)
        analysis.diagnostics.forEach(context.diagnose)
        switch analysis.model {
        case .structure(let expansion)?: return expansion.members()
        case .enumeration(let expansion)?: return expansion.members()
        case nil: return []
        }
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        let analysis = GenerableAnalysis(attribute: node, declaration: declaration)
        let initializer: DeclSyntax
        switch analysis.model {
        case .structure(let expansion)?: initializer = expansion.initializer()
        case .enumeration(let expansion)?: initializer = expansion.initializer()
        case nil: return []
        }
        // The compiler lists only the conformances the type does not already declare.
        let conformance = protocols.isEmpty ? "" : ": FoundationModels.Generable"
        // `nonisolated`: in a target whose default isolation is the main actor (Xcode 26's app
        // template, SwiftPM's `.defaultIsolation(MainActor.self)`), the conformance would
        // otherwise be main-actor isolated, and an isolated conformance cannot satisfy the
        // `SendableMetatype` requirement of `ConvertibleFromGeneratedContent`: every use of the
        // type as `Generable` would fail. Elsewhere `nonisolated` changes nothing.
        let extensionDecl: DeclSyntax = """
            nonisolated extension \(raw: type.trimmedDescription)\(raw: conformance) {
            \(raw: indent(initializer.description, by: 1))
            }
            """
        return extensionDecl.as(ExtensionDeclSyntax.self).map { [$0] } ?? []
    }
}

/// The arguments of `@Generable(…)` and the access level of the type it is attached to.
struct GenerableOptions {
    /// The `description:` argument as written.
    var description: ExprSyntax?
    /// The `representNilExplicitlyInGeneratedContent:` argument as written.
    var explicitNil: ExprSyntax?
    /// `"public "`, `"package "` or `""`: the modifier for generated members.
    var access: String

    /// The value of `explicitNil` when it is a Boolean literal; nil when absent (false) is
    /// reported as `false`, and a non-literal expression as nil.
    var explicitNilLiteral: Bool? {
        guard let explicitNil else { return false }
        return explicitNil.as(BooleanLiteralExprSyntax.self).map { $0.literal.tokenKind == .keyword(.true) }
    }

    init(attribute: AttributeSyntax, modifiers: DeclModifierListSyntax) {
        if case .argumentList(let arguments) = attribute.arguments {
            for argument in arguments {
                switch argument.label?.text {
                case "description": description = argument.expression.trimmed
                case "representNilExplicitlyInGeneratedContent": explicitNil = argument.expression.trimmed
                default: break
                }
            }
        }
        // `nil` description literals add nothing to the schema.
        if description?.is(NilLiteralExprSyntax.self) == true { description = nil }
        let names = Set(modifiers.map(\.name.text))
        if names.contains("public") || names.contains("open") {
            access = "public "
        } else if names.contains("package") {
            access = "package "
        } else {
            access = ""
        }
    }
}

/// What `@Generable` makes of the declaration it is attached to.
struct GenerableAnalysis {
    enum Model {
        case structure(StructExpansion)
        case enumeration(EnumExpansion)
    }

    private(set) var model: Model?
    private(set) var diagnostics: [Diagnostic] = []

    init(attribute: AttributeSyntax, declaration: some DeclGroupSyntax) {
        if let structure = declaration.as(StructDeclSyntax.self) {
            let options = GenerableOptions(attribute: attribute, modifiers: structure.modifiers)
            let (properties, problems) = StoredProperty.collect(from: structure.memberBlock.members)
            diagnostics = problems
            if problems.isEmpty {
                model = .structure(
                    StructExpansion(typeName: structure.name.text, options: options, properties: properties))
            }
        } else if let enumeration = declaration.as(EnumDeclSyntax.self) {
            let options = GenerableOptions(attribute: attribute, modifiers: enumeration.modifiers)
            let (cases, problems) = EnumCase.collect(from: enumeration.memberBlock.members)
            diagnostics = problems
            if cases.isEmpty { diagnostics.append(MacroDiagnostic.enumWithoutCases.at(enumeration.name)) }
            if diagnostics.isEmpty {
                model = .enumeration(EnumExpansion(typeName: enumeration.name.text, options: options, cases: cases))
            }
        } else {
            diagnostics = [MacroDiagnostic.notStructOrEnum.at(attribute)]
        }
    }
}
