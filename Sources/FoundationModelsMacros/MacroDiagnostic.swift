import SwiftDiagnostics
import SwiftSyntax

/// A diagnostic raised by `@Generable`, `@Guide` or `@SessionPropertyEntry` at a particular node.
struct MacroDiagnostic: DiagnosticMessage, Error {
    let message: String
    let id: String
    let severity: DiagnosticSeverity

    var diagnosticID: MessageID { MessageID(domain: "FoundationModelsMacros", id: id) }

    static func error(_ id: String, _ message: String) -> MacroDiagnostic {
        MacroDiagnostic(message: message, id: id, severity: .error)
    }

    /// Places this message at `node`.
    func at(_ node: some SyntaxProtocol) -> Diagnostic {
        Diagnostic(node: Syntax(node), message: self)
    }
}

extension MacroDiagnostic {
    static let notStructOrEnum = error(
        "notStructOrEnum", "'@Generable' can only be applied to a struct or an enum")
    static let enumWithoutCases = error(
        "enumWithoutCases", "'@Generable' enum must have at least one case")
    static let missingTypeAnnotation = error(
        "missingTypeAnnotation",
        "'@Generable' needs an explicit type annotation on every stored property")
    static let guideNotOnStoredProperty = error(
        "guideNotOnStoredProperty", "'@Guide' can only be applied to a stored property")
    static let patternBinding = error(
        "patternBinding", "'@Generable' properties must be declared one name at a time, not with a tuple pattern")

    static let entryNeedsVariable = error(
        "entryNeedsVariable", "'@SessionPropertyEntry' can only be applied to a single 'var' property")
    static let entryNeedsDefault = error(
        "entryNeedsDefault", "'@SessionPropertyEntry' needs a default value: 'var name: Type = value'")

    static func unsupportedType(_ type: String, reason: String) -> MacroDiagnostic {
        error("unsupportedType", "type '\(type)' is not Generable: \(reason)")
    }
}
