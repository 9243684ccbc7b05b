/// One metadata value of a GGUF file.
///
/// GGUF arrays are homogeneous and may nest (an array of arrays). The enum is not `indirect`:
/// arrays are already stored out of line, so scalars and strings need no extra box.
public enum GGUFValue: Sendable, Equatable {
    case uint8(UInt8)
    case int8(Int8)
    case uint16(UInt16)
    case int16(Int16)
    case uint32(UInt32)
    case int32(Int32)
    case uint64(UInt64)
    case int64(Int64)
    case float32(Float)
    case float64(Double)
    case bool(Bool)
    case string(String)
    case array([GGUFValue])

    /// Any integer case that fits in `Int`; `nil` for other cases.
    public var intValue: Int? {
        switch self {
        case .uint8(let v): Int(v)
        case .int8(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint64(let v): Int(exactly: v)
        case .int64(let v): Int(v)
        default: nil
        }
    }

    /// Any float case, or an integer case converted; `nil` for strings, bools and arrays.
    public var doubleValue: Double? {
        switch self {
        case .float32(let v): Double(v)
        case .float64(let v): v
        case .uint64(let v): Double(v)
        default: intValue.map(Double.init)
        }
    }

    /// The string of a `.string` value.
    public var stringValue: String? {
        if case .string(let v) = self { v } else { nil }
    }

    /// The flag of a `.bool` value.
    public var boolValue: Bool? {
        if case .bool(let v) = self { v } else { nil }
    }

    /// The elements of an `.array` value.
    public var arrayValue: [GGUFValue]? {
        if case .array(let v) = self { v } else { nil }
    }

    /// The GGUF type tag this value is written with (GGUF's `gguf_type`).
    package var typeTag: UInt32 {
        switch self {
        case .uint8: 0
        case .int8: 1
        case .uint16: 2
        case .int16: 3
        case .uint32: 4
        case .int32: 5
        case .float32: 6
        case .bool: 7
        case .string: 8
        case .array: 9
        case .uint64: 10
        case .int64: 11
        case .float64: 12
        }
    }
}

extension GGUFValue: CustomStringConvertible {
    /// A short rendering for logs and `sotto` output; long arrays are abbreviated.
    public var description: String {
        switch self {
        case .uint8(let v): "\(v)"
        case .int8(let v): "\(v)"
        case .uint16(let v): "\(v)"
        case .int16(let v): "\(v)"
        case .uint32(let v): "\(v)"
        case .int32(let v): "\(v)"
        case .uint64(let v): "\(v)"
        case .int64(let v): "\(v)"
        case .float32(let v): "\(v)"
        case .float64(let v): "\(v)"
        case .bool(let v): "\(v)"
        case .string(let v): GGUFError.abbreviated(v).debugDescription
        case .array(let values):
            values.count <= 8
                ? "[" + values.map(\.description).joined(separator: ", ") + "]"
                : "[" + values.prefix(4).map(\.description).joined(separator: ", ") + ", … (\(values.count) values)]"
        }
    }
}
