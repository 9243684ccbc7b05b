/// Builds GGUF images in memory: for tests and for tools that make small synthetic models.
///
/// ```swift
/// var writer = GGUFWriter(version: 3)
/// writer.add("general.architecture", .string("llama"))
/// writer.addTensor("w", shape: [32, 2], type: .q8_0, data: [UInt8](repeating: 0, count: 68))
/// let file = try GGUFFile(bytes: writer.bytes())
/// ```
package struct GGUFWriter {
    package var version: UInt32
    package var alignment: Int
    package private(set) var entries: [(key: String, value: GGUFValue)] = []
    package private(set) var tensors: [(name: String, shape: [Int], type: GGMLType, data: [UInt8])] = []

    package init(version: UInt32 = 3, alignment: Int = 32) {
        self.version = version
        self.alignment = alignment
    }

    /// Appends a metadata entry. Arrays must be homogeneous (GGUF stores one element type).
    package mutating func add(_ key: String, _ value: GGUFValue) {
        entries.append((key, value))
    }

    /// Appends a tensor; `data` must hold exactly its bytes.
    package mutating func addTensor(_ name: String, shape: [Int], type: GGMLType, data: [UInt8]) {
        let rows = shape.dropFirst().reduce(1, *)
        precondition(data.count == rows * type.rowByteCount(elements: shape[0]), "wrong data size for \(name)")
        tensors.append((name, shape, type, data))
    }

    /// The complete file image.
    package func bytes() -> [UInt8] {
        var out: [UInt8] = []
        out.append(contentsOf: [0x47, 0x47, 0x55, 0x46])  // "GGUF"
        Self.put(version, into: &out)
        Self.put(UInt64(tensors.count), into: &out)
        Self.put(UInt64(entries.count), into: &out)
        for entry in entries {
            Self.put(entry.key, into: &out)
            Self.put(entry.value.typeTag, into: &out)
            Self.put(entry.value, into: &out)
        }
        var relative = 0
        var offsets: [Int] = []
        for tensor in tensors {
            offsets.append(relative)
            relative = Self.aligned(relative + tensor.data.count, alignment)
        }
        for (tensor, offset) in zip(tensors, offsets) {
            Self.put(tensor.name, into: &out)
            Self.put(UInt32(tensor.shape.count), into: &out)
            for dimension in tensor.shape { Self.put(UInt64(dimension), into: &out) }
            Self.put(tensor.type.rawValue, into: &out)
            Self.put(UInt64(offset), into: &out)
        }
        guard !tensors.isEmpty else { return out }
        let dataStart = Self.aligned(out.count, alignment)
        out.append(contentsOf: repeatElement(0, count: dataStart - out.count))
        for (tensor, offset) in zip(tensors, offsets) {
            out.append(contentsOf: repeatElement(0, count: dataStart + offset - out.count))
            out.append(contentsOf: tensor.data)
        }
        return out
    }

    private static func aligned(_ value: Int, _ alignment: Int) -> Int {
        (value + alignment - 1) / alignment * alignment
    }

    private static func put<T: FixedWidthInteger>(_ value: T, into out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func put(_ string: String, into out: inout [UInt8]) {
        put(UInt64(string.utf8.count), into: &out)
        out.append(contentsOf: string.utf8)
    }

    private static func put(_ value: GGUFValue, into out: inout [UInt8]) {
        switch value {
        case .uint8(let v): put(v, into: &out)
        case .int8(let v): put(v, into: &out)
        case .uint16(let v): put(v, into: &out)
        case .int16(let v): put(v, into: &out)
        case .uint32(let v): put(v, into: &out)
        case .int32(let v): put(v, into: &out)
        case .uint64(let v): put(v, into: &out)
        case .int64(let v): put(v, into: &out)
        case .float32(let v): put(v.bitPattern, into: &out)
        case .float64(let v): put(v.bitPattern, into: &out)
        case .bool(let v): put(UInt8(v ? 1 : 0), into: &out)
        case .string(let v): put(v, into: &out)
        case .array(let values):
            let tag = values.first?.typeTag ?? GGUFValue.uint8(0).typeTag
            precondition(values.allSatisfy { $0.typeTag == tag }, "GGUF arrays hold one element type")
            put(tag, into: &out)
            put(UInt64(values.count), into: &out)
            for element in values { put(element, into: &out) }
        }
    }
}
