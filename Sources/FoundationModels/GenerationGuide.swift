import Foundation

/// A constraint on the values a model may generate for a property: allowed strings, numeric
/// bounds, array counts.
///
/// ```swift
/// @Guide(description: "Search terms", .count(4))
/// var searchTerms: [String]
/// ```
public struct GenerationGuide<Value>: Sendable {
    package let constraint: GuideConstraint

    package init(_ constraint: GuideConstraint) {
        self.constraint = constraint
    }
}

/// A guide with its value type erased, as the schema applies it.
package indirect enum GuideConstraint: Sendable, Equatable, Hashable {
    case constant(String)
    case anyOf([String])
    /// The regular expression's text; nil when the `Regex` has no textual form.
    case pattern(String?)
    case integerRange(minimum: Int?, maximum: Int?)
    case numberRange(minimum: Double?, maximum: Double?)
    case count(minimum: Int?, maximum: Int?)
    case element(GuideConstraint)
}

extension GenerationGuide where Value == String {
    /// The string is always exactly `value`.
    public static func constant(_ value: String) -> GenerationGuide<String> { .init(.constant(value)) }

    /// The string is one of `values`.
    public static func anyOf(_ values: [String]) -> GenerationGuide<String> { .init(.anyOf(values)) }

    /// The whole string matches `regex`.
    public static func pattern<Output>(_ regex: Regex<Output>) -> GenerationGuide<String> {
        .init(.pattern(regex._literalPattern))
    }
}

extension GenerationGuide where Value == Int {
    /// The value is at least `value`.
    public static func minimum(_ value: Int) -> GenerationGuide<Int> {
        .init(.integerRange(minimum: value, maximum: nil))
    }
    /// The value is at most `value`.
    public static func maximum(_ value: Int) -> GenerationGuide<Int> {
        .init(.integerRange(minimum: nil, maximum: value))
    }
    /// The value lies in `range` (inclusive).
    public static func range(_ range: ClosedRange<Int>) -> GenerationGuide<Int> {
        .init(.integerRange(minimum: range.lowerBound, maximum: range.upperBound))
    }
}

extension GenerationGuide where Value == Double {
    /// The value is at least `value`.
    public static func minimum(_ value: Double) -> GenerationGuide<Double> {
        .init(.numberRange(minimum: value, maximum: nil))
    }
    /// The value is at most `value`.
    public static func maximum(_ value: Double) -> GenerationGuide<Double> {
        .init(.numberRange(minimum: nil, maximum: value))
    }
    /// The value lies in `range` (inclusive).
    public static func range(_ range: ClosedRange<Double>) -> GenerationGuide<Double> {
        .init(.numberRange(minimum: range.lowerBound, maximum: range.upperBound))
    }
}

extension GenerationGuide where Value == Float {
    /// The value is at least `value`.
    public static func minimum(_ value: Float) -> GenerationGuide<Float> {
        .init(.numberRange(minimum: Double(value), maximum: nil))
    }
    /// The value is at most `value`.
    public static func maximum(_ value: Float) -> GenerationGuide<Float> {
        .init(.numberRange(minimum: nil, maximum: Double(value)))
    }
    /// The value lies in `range` (inclusive).
    public static func range(_ range: ClosedRange<Float>) -> GenerationGuide<Float> {
        .init(.numberRange(minimum: Double(range.lowerBound), maximum: Double(range.upperBound)))
    }
}

extension GenerationGuide where Value == Decimal {
    /// The value is at least `value`.
    public static func minimum(_ value: Decimal) -> GenerationGuide<Decimal> {
        .init(.numberRange(minimum: value.doubleValue, maximum: nil))
    }
    /// The value is at most `value`.
    public static func maximum(_ value: Decimal) -> GenerationGuide<Decimal> {
        .init(.numberRange(minimum: nil, maximum: value.doubleValue))
    }
    /// The value lies in `range` (inclusive).
    public static func range(_ range: ClosedRange<Decimal>) -> GenerationGuide<Decimal> {
        .init(.numberRange(minimum: range.lowerBound.doubleValue, maximum: range.upperBound.doubleValue))
    }
}

extension GenerationGuide {
    /// The array has at least `count` elements.
    public static func minimumCount<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        .init(.count(minimum: count, maximum: nil))
    }

    /// The array has at most `count` elements.
    public static func maximumCount<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        .init(.count(minimum: nil, maximum: count))
    }

    /// The number of elements lies in `range` (inclusive).
    public static func count<Element>(_ range: ClosedRange<Int>) -> GenerationGuide<[Element]>
    where Value == [Element] {
        .init(.count(minimum: range.lowerBound, maximum: range.upperBound))
    }

    /// The array has exactly `count` elements.
    public static func count<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        .init(.count(minimum: count, maximum: count))
    }

    /// Every element follows `guide`.
    public static func element<Element>(_ guide: GenerationGuide<Element>) -> GenerationGuide<[Element]>
    where Value == [Element] {
        .init(.element(guide.constraint))
    }
}

// `@Guide(.count(3))` is type-checked before the macro knows the property's element type; these
// let the guide resolve on its own. Only macro attributes use them.
extension GenerationGuide where Value == [Never] {
    @_documentation(visibility: private)
    public static func minimumCount(_ count: Int) -> GenerationGuide<[Never]> {
        .init(.count(minimum: count, maximum: nil))
    }

    @_documentation(visibility: private)
    public static func maximumCount(_ count: Int) -> GenerationGuide<[Never]> {
        .init(.count(minimum: nil, maximum: count))
    }

    @_documentation(visibility: private)
    public static func count(_ range: ClosedRange<Int>) -> GenerationGuide<[Never]> {
        .init(.count(minimum: range.lowerBound, maximum: range.upperBound))
    }

    @_documentation(visibility: private) @_disfavoredOverload
    public static func count(_ count: Int) -> GenerationGuide<[Never]> { .init(.count(minimum: count, maximum: count)) }
}

extension Decimal {
    fileprivate var doubleValue: Double { NSDecimalNumber(decimal: self).doubleValue }
}
