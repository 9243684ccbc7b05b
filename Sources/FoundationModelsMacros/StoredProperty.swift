import SwiftDiagnostics
import SwiftSyntax

/// One stored property of a `@Generable` struct, as the macro sees it.
struct StoredProperty {
    /// The name as written, without backticks (the key in generated content).
    var name: String
    /// The name as it must be spelled in code (with backticks when it is a keyword).
    var identifier: String
    /// The declared type, as written.
    var type: TypeSyntax
    /// The type without its optional wrapper, or nil when the property is not optional.
    var wrappedType: TypeSyntax?
    /// `description:` from the property's `@Guide`.
    var guideDescription: ExprSyntax?
    /// The unlabeled arguments of the property's `@Guide`: guides or one regex literal.
    var guides: [ExprSyntax]

    var isOptional: Bool { wrappedType != nil }
    /// A `GenerationID` property carries the content's id instead of a generated value.
    var isGenerationID: Bool { TypeAnalysis.isGenerationID(wrappedType ?? type) }
}

extension StoredProperty {
    /// The stored properties declared by a struct's members, in declaration order, with
    /// diagnostics for the ones that cannot be generated. Static and computed properties, and
    /// `let` properties with an initial value, are skipped.
    static func collect(from members: MemberBlockItemListSyntax) -> (
        properties: [StoredProperty], diagnostics: [Diagnostic]
    ) {
        var properties: [StoredProperty] = []
        var diagnostics: [Diagnostic] = []
        for member in members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            let (found, problems) = collect(from: variable)
            properties += found
            diagnostics += problems
        }
        return (properties, diagnostics)
    }

    private static func collect(from variable: VariableDeclSyntax) -> ([StoredProperty], [Diagnostic]) {
        let skipped: Set<String> = ["static", "class", "lazy"]
        if variable.modifiers.contains(where: { skipped.contains($0.name.text) }) { return ([], []) }
        let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
        let guide = GuideArguments(attributes: variable.attributes)
        var properties: [StoredProperty] = []
        var diagnostics: [Diagnostic] = []
        let bindings = Array(variable.bindings)
        for (index, binding) in bindings.enumerated() {
            if let accessors = binding.accessorBlock, isComputed(accessors) { continue }
            guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
                diagnostics.append(MacroDiagnostic.patternBinding.at(binding.pattern))
                continue
            }
            // A constant with its value (`let id = UUID()`) is the type's own, as in Apple's
            // macro: not generated, and left out of the schema, init(_:) and PartiallyGenerated.
            if isLet, binding.initializer != nil { continue }
            // `var a, b: Int` gives `a` the type written after `b`.
            let annotation = bindings[index...].lazy
                .first { $0.typeAnnotation != nil || $0.initializer != nil }?.typeAnnotation
            guard let type = annotation?.type ?? binding.typeAnnotation?.type else {
                diagnostics.append(MacroDiagnostic.missingTypeAnnotation.at(pattern))
                continue
            }
            if let (node, reason) = TypeAnalysis.unsupportedReason(type) {
                diagnostics.append(MacroDiagnostic.unsupportedType(node.trimmedDescription, reason: reason).at(node))
                continue
            }
            let identifier = pattern.identifier.text
            properties.append(
                StoredProperty(
                    name: unescaped(identifier), identifier: identifier, type: type.trimmed,
                    wrappedType: TypeAnalysis.unwrapOptional(type)?.trimmed,
                    guideDescription: guide?.description, guides: guide?.guides ?? []))
        }
        return (properties, diagnostics)
    }

    /// A binding whose accessors include `get` (or a bare getter body) is computed; one with
    /// only `willSet`/`didSet` observers is still stored.
    static func isComputed(_ accessors: AccessorBlockSyntax) -> Bool {
        switch accessors.accessors {
        case .getter:
            return true
        case .accessors(let list):
            return list.contains { !["willSet", "didSet"].contains($0.accessorSpecifier.text) }
        @unknown default:
            return true
        }
    }
}

/// `name` without surrounding backticks.
func unescaped(_ name: String) -> String {
    name.hasPrefix("`") && name.hasSuffix("`") && name.count >= 2 ? String(name.dropFirst().dropLast()) : name
}

/// The arguments of a `@Guide(…)` attribute in a declaration's attribute list.
struct GuideArguments {
    var description: ExprSyntax?
    var guides: [ExprSyntax] = []

    init?(attributes: AttributeListSyntax) {
        let attribute = attributes.lazy.compactMap { $0.as(AttributeSyntax.self) }.first {
            let name = $0.attributeName.trimmedDescription
            return name == "Guide" || name == "FoundationModels.Guide"
        }
        guard let attribute else { return nil }
        if case .argumentList(let arguments) = attribute.arguments {
            for argument in arguments {
                if argument.label?.text == "description" {
                    description = argument.expression.trimmed
                } else {
                    guides.append(argument.expression.trimmed)
                }
            }
        }
    }
}
