import Foundation
import TestSupport
import Testing

@testable import Guidance

struct NumberRangeTests {
    @Test(
        .onTestThreads,
        arguments: [
            (-5, 5), (0, 0), (7, 7), (-1, -1), (0, 9), (10, 99), (-99, -10), (3, 1234), (-1234, -3), (-1000, 1000),
            (95, 105), (-105, -95), (1, 10), (19, 21),
        ])
    func integerRangeIsExact(min: Int, max: Int) throws {
        let grammar = try Grammar(schema: .integer(min: min, max: max))
        for value in -1300...1300 {
            #expect(grammar.accepts(String(value)) == (min...max).contains(value), "\(value) in \(min)...\(max)")
        }
        #expect(!grammar.accepts("-0"))
        #expect(!grammar.accepts("0\(max)"))
    }

    @Test(.onTestThreads) func integerBoundsAtTheEdgesOfInt() throws {
        let grammar = try Grammar(schema: .integer(min: Int.max - 2, max: Int.max))
        #expect(grammar.accepts(String(Int.max)))
        #expect(grammar.accepts(String(Int.max - 2)))
        #expect(!grammar.accepts(String(Int.max - 3)))
        let low = try Grammar(schema: .integer(max: Int.min + 1))
        #expect(low.accepts(String(Int.min)))
        #expect(!low.accepts(String(Int.min + 2)))
        #expect(!low.accepts("-9223372036854775809"))
    }

    @Test(.onTestThreads) func decimalDigitsOfDoubles() {
        let cases: [(Double, [UInt8], [UInt8])] = [
            (0, [0], []), (12.5, [1, 2], [5]), (1e-5, [0], [0, 0, 0, 0, 1]),
            (1.5e20, [1, 5] + [UInt8](repeating: 0, count: 19), []),
            (0.1, [0], [1]), (-3.25, [3], [2, 5]), (100, [1, 0, 0], []),
        ]
        for (value, integer, fraction) in cases {
            let digits = DecimalDigits(magnitudeOf: value)
            #expect(digits.integer == integer && digits.fraction == fraction, "\(value): \(digits)")
        }
    }

    /// Random decimal texts against `Decimal` comparisons.
    @Test(
        .onTestThreads,
        arguments: [
            (-1.5, 2.25), (0.1, 0.2), (-0.75, -0.25), (0, 1), (-10, 0), (3.14159, 3.1416), (-1000.5, 999.25), (5, 5),
            (0.001, 0.01), (-2, -1.999),
        ])
    func decimalRangeIsExact(min: Double, max: Double) throws {
        let grammar = try Grammar(schema: .number(min: min, max: max))
        var random = SplitMix64(seed: UInt64(bitPattern: Int64(min * 1000)) ^ 0xABCD)
        let low = Decimal(string: String(min))!
        let high = Decimal(string: String(max))!
        for _ in 0..<4000 {
            let negative = Bool.random(using: &random)
            let integerDigits = Int.random(in: 1...4, using: &random)
            var integer = String((0..<integerDigits).map { _ in "0123456789".randomElement(using: &random)! })
            if Int.random(in: 0..<3, using: &random) == 0 { integer = String(Int.random(in: 0...3, using: &random)) }
            while integer.count > 1 && integer.hasPrefix("0") { integer.removeFirst() }
            let fractionDigits = Int.random(in: 0...5, using: &random)
            let fraction = String((0..<fractionDigits).map { _ in "0123456789".randomElement(using: &random)! })
            let text = (negative ? "-" : "") + integer + (fraction.isEmpty ? "" : "." + fraction)
            let value = Decimal(string: text)!
            let isNegativeZero = negative && value == 0
            let expected = value >= low && value <= high && !isNegativeZero
            #expect(grammar.accepts(text) == expected, "\(text) in \(min)...\(max)")
        }
        #expect(grammar.accepts(String(min)) && grammar.accepts(String(max)))
    }
}
