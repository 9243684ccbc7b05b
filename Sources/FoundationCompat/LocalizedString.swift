import Foundation

// `String(localized:)` and the types it takes, which Foundation has on Apple's platforms and not
// on Linux. Apps with Foundation Models code use them in the same files (error descriptions,
// instructions), so Sotto's `FoundationModels` re-exports these and such files compile
// unchanged. The lookup is Foundation's own: the string table of the bundle (`Localizable` by
// default) when the app ships one, else the text as written; interpolated values fill the
// placeholders in order, or by position (`%1$@`) where a translation reorders them.

extension String {
    /// A localizable text with its interpolated values: the key is the text with a placeholder
    /// for each value (`"Hello %@"`), as Apple's string tables expect.
    public struct LocalizationValue: Equatable, Hashable, Codable, Sendable, ExpressibleByStringInterpolation,
        CustomStringConvertible
    {
        /// The key: the literal text, `%` doubled, with a placeholder for each value.
        public let key: String
        /// The values, as the placeholders format them.
        let arguments: [Argument]

        /// A value of a placeholder.
        enum Argument: Equatable, Hashable, Codable, Sendable {
            case object(String)
            case integer(Int64)
            case unsignedInteger(UInt64)
            case double(Double)
        }

        public init(_ value: String) {
            key = value.replacingOccurrences(of: "%", with: "%%")
            arguments = []
        }

        public init(stringLiteral value: String) {
            self.init(value)
        }

        public init(stringInterpolation: StringInterpolation) {
            key = stringInterpolation.key
            arguments = stringInterpolation.arguments
        }

        /// The text with its own values, unlocalized.
        public var description: String { LocalizedFormat.fill(key, with: arguments) }

        /// Collects the literal text and values of a localizable interpolation.
        public struct StringInterpolation: StringInterpolationProtocol, Sendable {
            var key = ""
            var arguments: [Argument] = []

            public init(literalCapacity: Int, interpolationCount: Int) {
                key.reserveCapacity(literalCapacity + 4 * interpolationCount)
            }

            public mutating func appendLiteral(_ literal: String) {
                key += literal.replacingOccurrences(of: "%", with: "%%")
            }

            public mutating func appendInterpolation(_ string: String) {
                key += "%@"
                arguments.append(.object(string))
            }

            public mutating func appendInterpolation<Value: BinaryInteger>(_ value: Value) {
                if Value.isSigned {
                    key += "%lld"
                    arguments.append(.integer(Int64(truncatingIfNeeded: value)))
                } else {
                    key += "%llu"
                    arguments.append(.unsignedInteger(UInt64(truncatingIfNeeded: value)))
                }
            }

            public mutating func appendInterpolation(_ value: Double) {
                key += "%lf"
                arguments.append(.double(value))
            }

            public mutating func appendInterpolation(_ value: Float) {
                key += "%f"
                arguments.append(.double(Double(value)))
            }

            public mutating func appendInterpolation(_ value: String.LocalizationValue) {
                key += "%@"
                arguments.append(.object(value.description))
            }

            @_disfavoredOverload
            public mutating func appendInterpolation<Value: CustomStringConvertible>(_ value: Value) {
                key += "%@"
                arguments.append(.object(value.description))
            }
        }
    }

    /// The localization of `keyAndValue` in `table` of `bundle` (the app's main bundle by
    /// default), or the text itself when no table has it.
    public init(
        localized keyAndValue: String.LocalizationValue, table: String? = nil, bundle: Bundle? = nil,
        locale: Locale = .current, comment: StaticString? = nil
    ) {
        self = LocalizedFormat.lookUp(
            keyAndValue.key, default: keyAndValue.key, arguments: keyAndValue.arguments, table: table,
            bundle: bundle, locale: locale)
    }

    /// The localization of `key` in `table` of `bundle`, or `defaultValue` when no table has it.
    public init(
        localized key: StaticString, defaultValue: String.LocalizationValue, table: String? = nil,
        bundle: Bundle? = nil, locale: Locale = .current, comment: StaticString? = nil
    ) {
        self = LocalizedFormat.lookUp(
            key.description, default: defaultValue.key, arguments: defaultValue.arguments, table: table,
            bundle: bundle, locale: locale)
    }

    /// The localization `resource` describes.
    public init(localized resource: LocalizedStringResource) {
        self = LocalizedFormat.lookUp(
            resource.key, default: resource.defaultValue.key, arguments: resource.defaultValue.arguments,
            table: resource.table, bundle: resource.bundle.bundle, locale: resource.locale)
    }
}

/// A localizable text to look up later: its key, default value, table and bundle.
public struct LocalizedStringResource: Equatable, Hashable, Sendable, ExpressibleByStringInterpolation,
    CustomStringConvertible
{
    /// Where a resource's string table is.
    public enum BundleDescription: Equatable, Hashable, Sendable {
        /// The app's main bundle.
        case main
        /// The bundle at a URL.
        case atURL(URL)

        var bundle: Bundle? {
            switch self {
            case .main: .main
            case .atURL(let url): Bundle(url: url)
            }
        }
    }

    /// The key looked up in the table.
    public var key: String
    /// The text when no table has the key.
    public var defaultValue: String.LocalizationValue
    /// The table (nil: `Localizable`).
    public var table: String?
    /// The locale the text is for.
    public var locale: Locale
    /// The bundle that has the table.
    public var bundle: BundleDescription

    /// A resource whose key is its text.
    public init(
        _ keyAndValue: String.LocalizationValue, table: String? = nil, locale: Locale = .current,
        bundle: BundleDescription = .main, comment: StaticString? = nil
    ) {
        key = keyAndValue.key
        defaultValue = keyAndValue
        self.table = table
        self.locale = locale
        self.bundle = bundle
    }

    /// A resource with a key of its own.
    public init(
        _ key: StaticString, defaultValue: String.LocalizationValue, table: String? = nil, locale: Locale = .current,
        bundle: BundleDescription = .main, comment: StaticString? = nil
    ) {
        self.key = key.description
        self.defaultValue = defaultValue
        self.table = table
        self.locale = locale
        self.bundle = bundle
    }

    public init(stringLiteral value: String) {
        self.init(String.LocalizationValue(value))
    }

    public init(stringInterpolation: String.LocalizationValue.StringInterpolation) {
        self.init(String.LocalizationValue(stringInterpolation: stringInterpolation))
    }

    /// The resource localized.
    public var description: String { String(localized: self) }
}

/// Looking a key up in a string table, and filling a format's placeholders.
enum LocalizedFormat {
    static func lookUp(
        _ key: String, default defaultFormat: String, arguments: [String.LocalizationValue.Argument],
        table: String?, bundle: Bundle?, locale: Locale
    ) -> String {
        let format = (bundle ?? .main).localizedString(forKey: key, value: defaultFormat, table: table)
        return fill(format, with: arguments)
    }

    /// `format` with its placeholders (`%@`, `%lld`, `%lf`…, or `%2$@` by position) replaced by
    /// `arguments`, and `%%` by `%`.
    static func fill(_ format: String, with arguments: [String.LocalizationValue.Argument]) -> String {
        var result = ""
        var next = 0
        var index = format.startIndex
        while index < format.endIndex {
            let character = format[index]
            index = format.index(after: index)
            guard character == "%", index < format.endIndex else {
                result.append(character)
                continue
            }
            if format[index] == "%" {
                result.append("%")
                index = format.index(after: index)
                continue
            }
            // An optional position (`2$`), then length modifiers, then the conversion.
            var position: Int?
            var scan = index
            var digits = ""
            while scan < format.endIndex, format[scan].isNumber {
                digits.append(format[scan])
                scan = format.index(after: scan)
            }
            if !digits.isEmpty, scan < format.endIndex, format[scan] == "$" {
                position = Int(digits).map { $0 - 1 }
                index = format.index(after: scan)
            }
            var specifier = "%"
            while index < format.endIndex, "lhqLzjt.0123456789".contains(format[index]) {
                specifier.append(format[index])
                index = format.index(after: index)
            }
            guard index < format.endIndex else {
                result += specifier
                break
            }
            let conversion = format[index]
            specifier.append(conversion)
            index = format.index(after: index)
            let slot = position ?? next
            if position == nil { next += 1 }
            guard arguments.indices.contains(slot) else {
                result += specifier
                continue
            }
            result += render(arguments[slot], conversion: conversion, specifier: specifier)
        }
        return result
    }

    private static func render(
        _ argument: String.LocalizationValue.Argument, conversion: Character, specifier: String
    ) -> String {
        switch (argument, conversion) {
        case (.object(let text), _): text
        case (.integer(let value), "d"), (.integer(let value), "i"): String(value)
        case (.unsignedInteger(let value), "u"), (.unsignedInteger(let value), "d"): String(value)
        case (.double(let value), _): String(format: specifier, value)
        case (.integer(let value), _): String(value)
        case (.unsignedInteger(let value), _): String(value)
        }
    }
}
