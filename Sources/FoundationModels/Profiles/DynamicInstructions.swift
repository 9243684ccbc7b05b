/// Instructions and tools assembled from app state, evaluated before every request (27 SDK).
///
/// ```swift
/// struct PresentationInstructions: DynamicInstructions {
///     var isEditingImage = true
///
///     var body: some DynamicInstructions {
///         Instructions("Help people improve their presentation.")
///         ListPhotosTool()
///         if isEditingImage {
///             Instructions("Suggest crops and filters.")
///         }
///     }
/// }
/// ```
///
/// A body lists ``Instructions`` (their segments are joined in order) and tools (they are the
/// tools of the request). Nesting dynamic instructions concatenates them.
public protocol DynamicInstructions {
    /// The type of dynamic instructions the body is.
    associatedtype Body: DynamicInstructions

    /// The content of the dynamic instructions.
    @DynamicInstructionsBuilder var body: Body { get }
}

extension DynamicInstructions {
    /// A session property, read in the body while the session evaluates it.
    public typealias SessionProperty = LanguageModelSession.SessionProperty
    /// Dynamic instructions that produce content for each element of a collection.
    public typealias ForEach = DynamicInstructionsForEach
}

/// What evaluated dynamic instructions contribute: instruction segments and tools, in order.
package struct ResolvedInstructions {
    package var segments: [Transcript.Segment] = []
    package var tools: [any Tool] = []

    package init() {}
}

/// Dynamic instructions that contribute directly instead of through a body (the builder's
/// parts, ``Instructions``, tools).
package protocol PrimitiveDynamicInstructions {
    func contribute(to resolved: inout ResolvedInstructions)
}

extension DynamicInstructions {
    /// Evaluates the instructions (their bodies, down to the parts) into `resolved`.
    package func resolve(into resolved: inout ResolvedInstructions) {
        if let primitive = self as? any PrimitiveDynamicInstructions {
            primitive.contribute(to: &resolved)
        } else {
            body.resolve(into: &resolved)
        }
    }
}

extension Never: DynamicInstructions {
    public var body: Never { preconditionFailure("Never has no body") }
}

extension Instructions: DynamicInstructions, PrimitiveDynamicInstructions {
    public var body: Never { preconditionFailure("Instructions are a primitive of dynamic instructions") }

    package func contribute(to resolved: inout ResolvedInstructions) {
        resolved.segments += segments
    }
}

extension Optional: DynamicInstructions, PrimitiveDynamicInstructions where Wrapped: DynamicInstructions {
    public var body: Never { preconditionFailure("Optional is a primitive of dynamic instructions") }

    package func contribute(to resolved: inout ResolvedInstructions) {
        self?.resolve(into: &resolved)
    }
}

/// Dynamic instructions with nothing in them.
public struct EmptyDynamicInstructions: DynamicInstructions, PrimitiveDynamicInstructions {
    public init() {}
    public var body: Never { preconditionFailure("EmptyDynamicInstructions is a primitive") }
    package func contribute(to resolved: inout ResolvedInstructions) {}
}

/// Dynamic instructions listed one after another in a builder block.
public struct TupleDynamicInstructions<each Content: DynamicInstructions>: DynamicInstructions,
    PrimitiveDynamicInstructions
{
    package let content: (repeat each Content)

    package init(_ content: repeat each Content) {
        self.content = (repeat each content)
    }

    public var body: Never { preconditionFailure("TupleDynamicInstructions is a primitive") }

    package func contribute(to resolved: inout ResolvedInstructions) {
        for part in repeat each content { part.resolve(into: &resolved) }
    }
}

/// One of two dynamic instructions, as an `if`/`else` in a builder chose.
public struct ConditionalDynamicInstructions<TrueContent: DynamicInstructions, FalseContent: DynamicInstructions>:
    DynamicInstructions, PrimitiveDynamicInstructions
{
    package enum Choice {
        case first(TrueContent)
        case second(FalseContent)
    }

    package let choice: Choice

    public var body: Never { preconditionFailure("ConditionalDynamicInstructions is a primitive") }

    package func contribute(to resolved: inout ResolvedInstructions) {
        switch choice {
        case .first(let content): content.resolve(into: &resolved)
        case .second(let content): content.resolve(into: &resolved)
        }
    }
}

/// Dynamic instructions of any type.
public struct AnyDynamicInstructions: DynamicInstructions, PrimitiveDynamicInstructions {
    private let resolveInto: (inout ResolvedInstructions) -> Void

    /// Erases the type of `instructions`.
    public init(_ instructions: some DynamicInstructions) {
        resolveInto = { instructions.resolve(into: &$0) }
    }

    public var body: Never { preconditionFailure("AnyDynamicInstructions is a primitive") }

    package func contribute(to resolved: inout ResolvedInstructions) {
        resolveInto(&resolved)
    }
}

/// Dynamic instructions made for each element of a collection.
///
/// ```swift
/// ForEach(topics) { topic in
///     Instructions("Cover \(topic).")
/// }
/// ```
public struct DynamicInstructionsForEach<Data: Sequence, Content: DynamicInstructions>: DynamicInstructions,
    PrimitiveDynamicInstructions
{
    private let data: Data
    private let content: (Data.Element) -> Content

    /// Instructions from `content` for each element of `data`, in order.
    public init(_ data: Data, @DynamicInstructionsBuilder content: @escaping (Data.Element) -> Content) {
        self.data = data
        self.content = content
    }

    public var body: Never { preconditionFailure("DynamicInstructionsForEach is a primitive") }

    package func contribute(to resolved: inout ResolvedInstructions) {
        for element in data { content(element).resolve(into: &resolved) }
    }
}

/// Tools listed in a builder block: they become the tools of the request.
package struct ToolInstructions: DynamicInstructions, PrimitiveDynamicInstructions {
    let tools: [any Tool]

    package var body: Never { preconditionFailure("ToolInstructions is a primitive") }

    package func contribute(to resolved: inout ResolvedInstructions) {
        resolved.tools += tools
    }
}

/// Builds dynamic instructions from instructions, tools and other dynamic instructions listed
/// in a closure, with `if`, `if`/`else` and `#available`.
@resultBuilder
public struct DynamicInstructionsBuilder {
    public static func buildBlock() -> EmptyDynamicInstructions {
        EmptyDynamicInstructions()
    }

    public static func buildBlock<Content: DynamicInstructions>(_ content: Content) -> Content {
        content
    }

    public static func buildBlock<each Content: DynamicInstructions>(_ content: repeat each Content)
        -> TupleDynamicInstructions<repeat each Content>
    {
        TupleDynamicInstructions(repeat each content)
    }

    public static func buildExpression<Content: DynamicInstructions>(_ content: Content) -> Content {
        content
    }

    /// A tool in the list: the model may call it in the requests these instructions are for.
    public static func buildExpression(_ tool: some Tool) -> some DynamicInstructions {
        ToolInstructions(tools: [tool])
    }

    /// Tools in the list.
    public static func buildExpression(_ tools: [any Tool]) -> some DynamicInstructions {
        ToolInstructions(tools: tools)
    }

    /// Text in the list, as instructions.
    public static func buildExpression(_ text: String) -> Instructions {
        Instructions(text)
    }

    public static func buildOptional<Content: DynamicInstructions>(_ content: Content?) -> Content? {
        content
    }

    public static func buildEither<TrueContent, FalseContent>(first content: TrueContent)
        -> ConditionalDynamicInstructions<TrueContent, FalseContent>
    {
        ConditionalDynamicInstructions(choice: .first(content))
    }

    public static func buildEither<TrueContent, FalseContent>(second content: FalseContent)
        -> ConditionalDynamicInstructions<TrueContent, FalseContent>
    {
        ConditionalDynamicInstructions(choice: .second(content))
    }

    public static func buildLimitedAvailability(_ content: some DynamicInstructions) -> AnyDynamicInstructions {
        AnyDynamicInstructions(content)
    }
}
