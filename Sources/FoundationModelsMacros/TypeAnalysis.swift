import SwiftSyntax

/// What the macro can tell about a property's type from its spelling alone.
///
/// A macro sees only syntax: it cannot look up whether a type conforms to `Generable`. It
/// recognises optionals and arrays, rejects spellings that can never be `Generable` (functions,
/// tuples, dictionaries, existentials, and a list of well-known Foundation types), and leaves the
/// rest to the compiler, which reports a missing conformance inside the expansion.
enum TypeAnalysis {
    /// The type with one level of `?`, `!` or `Optional<…>` removed, or nil if it is not optional.
    static func unwrapOptional(_ type: TypeSyntax) -> TypeSyntax? {
        if let optional = type.as(OptionalTypeSyntax.self) { return optional.wrappedType }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return unwrapped.wrappedType }
        if let argument = genericArgument(of: type, named: "Optional") { return argument }
        return nil
    }

    /// Whether the type is spelled `GenerationID` (optionally module-qualified).
    static func isGenerationID(_ type: TypeSyntax) -> Bool {
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            return identifier.name.text == "GenerationID" && identifier.genericArgumentClause == nil
        }
        if let member = type.as(MemberTypeSyntax.self) {
            return member.name.text == "GenerationID" && member.baseType.trimmedDescription == "FoundationModels"
        }
        return false
    }

    /// The spelling used for `T.PartiallyGenerated`, with array sugar written out so that the
    /// member lookup parses (`Swift.Array<T>.PartiallyGenerated`).
    static func partiallyGeneratedSpelling(of type: TypeSyntax) -> String {
        if let array = type.as(ArrayTypeSyntax.self) {
            return "Swift.Array<\(array.element.trimmedDescription)>.PartiallyGenerated"
        }
        if let parenthesized = type.as(TupleTypeSyntax.self), parenthesized.elements.count == 1,
            let only = parenthesized.elements.first, only.firstName == nil
        {
            return partiallyGeneratedSpelling(of: only.type)
        }
        return "\(type.trimmedDescription).PartiallyGenerated"
    }

    /// A type spelling usable before `.self`: an implicitly unwrapped optional becomes `T?`.
    static func metatypeSpelling(of type: TypeSyntax) -> String {
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return "\(unwrapped.wrappedType.trimmedDescription)?"
        }
        return type.trimmedDescription
    }

    /// Why a type can never be `Generable`, with the node to point at, or nil if it may be.
    static func unsupportedReason(_ type: TypeSyntax) -> (node: TypeSyntax, reason: String)? {
        if let wrapped = unwrapOptional(type) { return unsupportedReason(wrapped) }
        if let array = type.as(ArrayTypeSyntax.self) { return unsupportedReason(array.element) }
        if let argument = genericArgument(of: type, named: "Array") { return unsupportedReason(argument) }
        if type.is(DictionaryTypeSyntax.self) {
            return (type, "dictionaries are not Generable; use a @Generable struct or an array of pairs")
        }
        if type.is(FunctionTypeSyntax.self) {
            return (type, "function types cannot be generated")
        }
        if let tuple = type.as(TupleTypeSyntax.self) {
            if tuple.elements.count == 1, let only = tuple.elements.first, only.firstName == nil {
                return unsupportedReason(only.type)
            }
            return (type, "tuples are not Generable; use a @Generable struct")
        }
        if type.is(MetatypeTypeSyntax.self) {
            return (type, "metatypes cannot be generated")
        }
        if let someOrAny = type.as(SomeOrAnyTypeSyntax.self) {
            return (
                type, "'\(someOrAny.someOrAnySpecifier.text)' types cannot be generated; use a concrete @Generable type"
            )
        }
        if type.is(CompositionTypeSyntax.self) {
            return (type, "protocol compositions cannot be generated")
        }
        if let member = type.as(MemberTypeSyntax.self), member.baseType.trimmedDescription == "Swift",
            member.name.text == "Character"
        {
            return (type, "Character is not Generable; use a String")
        }
        guard let name = simpleName(of: type) else { return nil }
        if let reason = knownUnsupported[name] { return (type, reason) }
        return nil
    }

    /// Well-known types that are not `Generable`, with advice. Names a program is likely to
    /// reuse for its own types (`Character`, say) are left out: a macro cannot tell them apart.
    static let knownUnsupported: [String: String] = {
        var table: [String: String] = [
            "Any": "'Any' cannot be generated; use a concrete @Generable type",
            "AnyObject": "'AnyObject' cannot be generated; use a concrete @Generable type",
            "AnyHashable": "'AnyHashable' cannot be generated; use a concrete @Generable type",
            "Date": "dates are not Generable; generate a String (for example ISO 8601) and convert it",
            "URL": "URLs are not Generable; generate a String and convert it",
            "Data": "Data is not Generable; generate a String",
            "UUID": "UUIDs are not Generable; use GenerationID or a String",
            "Substring": "Substring is not Generable; use a String",
            "Dictionary": "dictionaries are not Generable; use a @Generable struct or an array of pairs",
            "Set": "sets are not Generable; use an array",
            "CGFloat": "CGFloat is not Generable; use Double",
            "Void": "Void cannot be generated",
            "Never": "Never cannot be generated",
        ]
        for integer in ["Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64"] {
            table[integer] = "\(integer) is not Generable; use Int"
        }
        return table
    }()

    /// `Foo` for `Foo`, `Foundation.Foo`, `Swift.Foo`; nil for other member types or generics
    /// other than `Dictionary<…>`/`Set<…>`.
    private static func simpleName(of type: TypeSyntax) -> String? {
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            return identifier.name.text
        }
        if let member = type.as(MemberTypeSyntax.self),
            ["Foundation", "Swift", "CoreGraphics"].contains(member.baseType.trimmedDescription)
        {
            return member.name.text
        }
        return nil
    }

    /// The single generic argument of `Name<T>` or `Swift.Name<T>`.
    private static func genericArgument(of type: TypeSyntax, named name: String) -> TypeSyntax? {
        let clause: GenericArgumentClauseSyntax?
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == name {
            clause = identifier.genericArgumentClause
        } else if let member = type.as(MemberTypeSyntax.self), member.name.text == name,
            member.baseType.trimmedDescription == "Swift"
        {
            clause = member.genericArgumentClause
        } else {
            return nil
        }
        guard let arguments = clause?.arguments, arguments.count == 1, let first = arguments.first else { return nil }
        return first.argument.as(TypeSyntax.self)
    }
}
