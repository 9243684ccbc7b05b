import Foundation

// Conformances of standard types. Each converts from one content kind and throws
// `decodingFailure` naming what it found otherwise.

extension String: Generable {
    public static var generationSchema: GenerationSchema { GenerationSchema(primitive: .string(StringConstraints())) }

    public init(_ content: GeneratedContent) throws {
        guard case .string(let value) = content.kind else { throw content.mismatch(expected: "a string") }
        self = value
    }

    public var generatedContent: GeneratedContent { GeneratedContent(kind: .string(self)) }
}

extension Bool: Generable {
    public static var generationSchema: GenerationSchema { GenerationSchema(primitive: .boolean) }

    public init(_ content: GeneratedContent) throws {
        guard case .bool(let value) = content.kind else { throw content.mismatch(expected: "a Boolean") }
        self = value
    }

    public var generatedContent: GeneratedContent { GeneratedContent(kind: .bool(self)) }
}

extension Int: Generable {
    public static var generationSchema: GenerationSchema {
        GenerationSchema(primitive: .integer(minimum: nil, maximum: nil))
    }

    public init(_ content: GeneratedContent) throws {
        guard case .number(let value) = content.kind, let integer = Int(exactly: value) else {
            throw content.mismatch(expected: "an integer")
        }
        self = integer
    }

    public var generatedContent: GeneratedContent { GeneratedContent(kind: .number(Double(self))) }
}

extension Double: Generable {
    public static var generationSchema: GenerationSchema {
        GenerationSchema(primitive: .number(minimum: nil, maximum: nil))
    }

    public init(_ content: GeneratedContent) throws {
        guard case .number(let value) = content.kind else { throw content.mismatch(expected: "a number") }
        self = value
    }

    public var generatedContent: GeneratedContent { GeneratedContent(kind: .number(self)) }
}

extension Float: Generable {
    public static var generationSchema: GenerationSchema {
        GenerationSchema(primitive: .number(minimum: nil, maximum: nil))
    }

    public init(_ content: GeneratedContent) throws {
        guard case .number(let value) = content.kind else { throw content.mismatch(expected: "a number") }
        self = Float(value)
    }

    public var generatedContent: GeneratedContent { GeneratedContent(kind: .number(Double(self))) }
}

extension Decimal: Generable {
    public static var generationSchema: GenerationSchema {
        GenerationSchema(primitive: .number(minimum: nil, maximum: nil))
    }

    public init(_ content: GeneratedContent) throws {
        // Through the shortest decimal text, so 0.1 stays 0.1 rather than its binary expansion.
        guard case .number(let value) = content.kind, value.isFinite,
            let decimal = Decimal(string: GeneratedContent.jsonNumber(value), locale: Locale(identifier: "en_US_POSIX"))
        else { throw content.mismatch(expected: "a number") }
        self = decimal
    }

    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .number(NSDecimalNumber(decimal: self).doubleValue))
    }
}

extension Never: Generable {
    public static var generationSchema: GenerationSchema {
        GenerationSchema(primitive: .anyOf(name: nil, description: nil, choices: []))
    }

    public init(_ content: GeneratedContent) throws {
        throw content.mismatch(expected: "no value (Never cannot be generated)")
    }

    public var generatedContent: GeneratedContent {
        switch self {}
    }
}

extension GeneratedContent: Generable {
    /// Any JSON value.
    public static var generationSchema: GenerationSchema { GenerationSchema(primitive: .anyValue) }

    public init(_ content: GeneratedContent) throws {
        self = content
    }

    public var generatedContent: GeneratedContent { self }
}

extension Array: ConvertibleFromGeneratedContent where Element: ConvertibleFromGeneratedContent {
    /// Converts every element. While an array is still streaming, its last element is left out
    /// if it cannot be converted yet (say, half of an enum case's name).
    public init(_ content: GeneratedContent) throws {
        let elements = try content.elements()
        var values: [Element] = []
        values.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do {
                values.append(try Element(element))
            } catch let error as LanguageModelSession.GenerationError {
                if index == elements.count - 1, !element.isComplete { break }
                throw error.prefixed(by: "element \(index): ")
            }
        }
        self = values
    }
}

extension Array: ConvertibleToGeneratedContent where Element: ConvertibleToGeneratedContent {
    public var generatedContent: GeneratedContent { GeneratedContent(kind: .array(map(\.generatedContent))) }
}

extension Array: Generable where Element: Generable {
    public typealias PartiallyGenerated = [Element.PartiallyGenerated]

    public static var generationSchema: GenerationSchema {
        GenerationSchema(arrayOf: Element.generationSchema)
    }
}

extension Optional: ConvertibleToGeneratedContent where Wrapped: ConvertibleToGeneratedContent {
    /// The wrapped value's content, or null.
    public var generatedContent: GeneratedContent { self?.generatedContent ?? GeneratedContent(kind: .null) }
}

extension GeneratedContent {
    package func mismatch(expected: String) -> LanguageModelSession.GenerationError {
        decodingFailure("expected \(expected), found \(kind.name)\(isComplete ? "" : " (incomplete)"): \(jsonString)")
    }
}
