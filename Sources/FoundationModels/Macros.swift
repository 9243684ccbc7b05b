/// Makes a struct or enum `Generable`: adds its generation schema, its conversions to and from
/// generated content, and (for a struct) a `PartiallyGenerated` type whose properties are all
/// optional, for streaming.
///
/// ```swift
/// @Generable(description: "A recipe")
/// struct Recipe {
///     var title: String
///     @Guide(description: "Steps, in order", .count(3...8))
///     var steps: [String]
///     var servings: Int?
/// }
/// ```
///
/// Every stored property must have an explicit type that is `Generable` (a `String`, number,
/// `Bool`, another `@Generable` type, an array or an optional of one). Properties are generated
/// in declaration order. An enum of plain cases is generated as one of its case names; an enum
/// with associated values as `{"caseName": {"label": value}}`.
@attached(extension, conformances: Generable, names: named(init(_:)), named(generatedContent))
@attached(member, names: arbitrary)
public macro Generable(description: String? = nil) =
    #externalMacro(module: "FoundationModelsMacros", type: "GenerableMacro")

/// Makes a struct or enum `Generable`; with `representNilExplicitlyInGeneratedContent`, an
/// optional property without a value is generated as `null` instead of being left out.
@attached(extension, conformances: Generable, names: named(init(_:)), named(generatedContent))
@attached(member, names: arbitrary)
public macro Generable(description: String? = nil, representNilExplicitlyInGeneratedContent: Bool) =
    #externalMacro(module: "FoundationModelsMacros", type: "GenerableMacro")

/// Describes a property of a `@Generable` type, and constrains its values.
///
/// ```swift
/// @Guide(description: "Search terms", .count(4))
/// var searchTerms: [String]
/// ```
@attached(peer)
public macro Guide<T>(description: String? = nil, _ guides: GenerationGuide<T>...) =
    #externalMacro(module: "FoundationModelsMacros", type: "GuideMacro") where T: Generable

/// Describes a string property of a `@Generable` type, and constrains it to match a regular
/// expression.
///
/// ```swift
/// @Guide(description: "A hashtag", /#[a-z]+/)
/// var hashtag: String
/// ```
@attached(peer)
public macro Guide<RegexOutput>(description: String? = nil, _ guides: Regex<RegexOutput>) =
    #externalMacro(module: "FoundationModelsMacros", type: "GuideMacro")

/// Describes a property of a `@Generable` type.
@attached(peer)
public macro Guide(description: String) =
    #externalMacro(module: "FoundationModelsMacros", type: "GuideMacro")

/// Declares a custom session property (27 SDK) in an extension of ``SessionPropertyValues``:
/// the initial value is its default, and ``LanguageModelSession/SessionProperty`` reads and
/// writes it from profiles, dynamic instructions and tools.
///
/// ```swift
/// extension SessionPropertyValues {
///     @SessionPropertyEntry var accountID: String = "anonymous"
/// }
/// ```
@attached(accessor)
@attached(peer, names: prefixed(__Key_))
public macro SessionPropertyEntry() =
    #externalMacro(module: "FoundationModelsMacros", type: "SessionPropertyEntryMacro")
