/// What a parse of a GGUF header and directory produces.
struct GGUFLayout {
    var version: UInt32
    /// Every metadata value except the large string arrays in `stringArrays`.
    var metadata: [String: GGUFValue]
    var stringArrays: [String: StringArrayLocation]
    var metadataKeys: [String]
    var tensors: [GGUFTensor]
    var alignment: Int
    var dataOffset: Int
}

/// Where a large array of strings lies in the file: `count` length-prefixed strings starting at
/// `offset`, all checked to lie inside the file. Vocabularies and merge lists are kept this way so
/// opening a file does not build hundreds of thousands of strings nobody may ask for.
struct StringArrayLocation: Sendable {
    var offset: Int
    var count: Int

    /// Arrays of at least this many strings are located rather than parsed.
    static let threshold = 1024

    /// Decodes the strings (invalid UTF-8 is repaired with U+FFFD, as everywhere in the reader).
    func strings(in base: UnsafeRawPointer) -> [String] {
        var result: [String] = []
        result.reserveCapacity(count)
        var at = offset
        for _ in 0..<count {
            let length = Int(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
            result.append(String(decoding: UnsafeRawBufferPointer(start: base + at + 8, count: length), as: UTF8.self))
            at += 8 + length
        }
        return result
    }
}

/// Reads the header, metadata and tensor directory from `bytes` (the whole file).
///
/// Every read goes through `need(_:)`, which checks the bytes that remain; every count is
/// compared with the smallest number of bytes its elements could occupy before anything is
/// allocated, so a corrupt count fails fast instead of allocating or looping.
struct GGUFParser {
    static let magic: UInt32 = 0x4655_4747  // "GGUF" read little-endian
    static let maxArrayNesting = 8
    static let maxDimensions = 4
    static let defaultAlignment = 32
    /// The GGUF specification limits keys to 65,535 bytes.
    static let maxKeyLength = 65_535
    /// ggml limits tensor names to 63 bytes (`GGML_MAX_NAME`); allow more, but not megabytes.
    static let maxTensorNameLength = 1024

    private let base: UnsafeRawPointer
    private let size: Int
    private var offset = 0
    private var key: String?
    private var tensorName: String?

    init(_ bytes: UnsafeRawBufferPointer) {
        // A zero-length buffer may have a nil base; `need` rejects every read from it.
        self.base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        self.size = bytes.count
    }

    static func parse(_ bytes: UnsafeRawBufferPointer) throws(GGUFError) -> GGUFLayout {
        var parser = GGUFParser(bytes)
        return try parser.parse()
    }

    /// Capacity to reserve for `count` entries: a count that passed the size check can still be
    /// millions in a damaged file, so only modest counts are reserved up front; larger collections
    /// grow as entries actually parse.
    private static func reservation(_ count: Int) -> Int { min(count, 4096) }

    // MARK: Errors and primitive reads

    private func error(_ kind: GGUFError.Kind, _ message: String, at position: Int? = nil) -> GGUFError {
        GGUFError(kind, message, offset: position ?? offset, key: key, tensor: tensorName)
    }

    private var remaining: Int { size - offset }

    private func need(_ count: Int, _ what: @autoclosure () -> String) throws(GGUFError) {
        guard count <= remaining else {
            throw error(.truncated, "file ends after \(remaining) bytes, inside \(what()) (\(count) bytes)")
        }
    }

    private mutating func load<T: FixedWidthInteger>(_: T.Type, _ what: @autoclosure () -> String) throws(GGUFError)
        -> T
    {
        try need(MemoryLayout<T>.size, what())
        let value = base.loadUnaligned(fromByteOffset: offset, as: T.self)
        offset += MemoryLayout<T>.size
        return T(littleEndian: value)
    }

    /// A 64-bit count, checked so that `count` elements of at least `minimumSize` bytes fit in
    /// what remains of the file.
    private mutating func count(minimumSize: Int, _ what: String) throws(GGUFError) -> Int {
        let start = offset
        let raw = try load(UInt64.self, "the count of \(what)")
        guard raw <= UInt64(remaining / max(minimumSize, 1)) else {
            throw error(
                .countTooLarge, "\(raw) \(what) cannot fit in the \(remaining) bytes left in the file", at: start)
        }
        return Int(raw)
    }

    private mutating func string(
        _ what: @autoclosure () -> String, maxLength: Int = .max
    ) throws(GGUFError) -> String {
        let start = offset
        let raw = try load(UInt64.self, "the length of \(what())")
        guard raw <= UInt64(maxLength) else {
            throw error(
                .countTooLarge, "\(what()) of \(raw) bytes is longer than the \(maxLength) GGUF allows", at: start)
        }
        guard raw <= UInt64(remaining) else {
            throw error(
                .countTooLarge, "\(what()) of \(raw) bytes cannot fit in the \(remaining) bytes left in the file",
                at: start)
        }
        let length = Int(raw)
        let text = String(decoding: UnsafeRawBufferPointer(start: base + offset, count: length), as: UTF8.self)
        offset += length
        return text
    }

    // MARK: File structure

    private mutating func parse() throws(GGUFError) -> GGUFLayout {
        let magic = try load(UInt32.self, "the magic number")
        guard magic == Self.magic else {
            throw error(.badMagic, "not a GGUF file (magic bytes are not 'GGUF')", at: 0)
        }
        let version = try load(UInt32.self, "the version")
        guard version == 2 || version == 3 else {
            let hint = version.byteSwapped <= 3 ? " (a big-endian file?)" : ""
            throw error(.unsupportedVersion, "GGUF version \(version)\(hint) is not supported; expected 2 or 3", at: 4)
        }
        // Smallest tensor entry: name length, n_dims, one dimension, type, offset.
        let tensorCount = try count(minimumSize: 8 + 4 + 8 + 4 + 8, "tensors")
        // Smallest key/value: key length, type tag, a one-byte value.
        let metadataCount = try count(minimumSize: 8 + 4 + 1, "metadata entries")

        var metadata: [String: GGUFValue] = [:]
        var keys: [String] = []
        var stringArrays: [String: StringArrayLocation] = [:]
        var alignment = Self.defaultAlignment
        metadata.reserveCapacity(Self.reservation(metadataCount))
        keys.reserveCapacity(Self.reservation(metadataCount))
        for _ in 0..<metadataCount {
            let keyStart = offset
            key = nil
            let name = try string("a metadata key", maxLength: Self.maxKeyLength)
            key = name
            guard metadata[name] == nil, stringArrays[name] == nil else {
                throw error(.duplicateKey, "the key appears twice", at: keyStart)
            }
            let tag = try load(UInt32.self, "the value type")
            let valueStart = offset
            if tag == 9, let location = try locateStringArray() {
                stringArrays[name] = location
            } else {
                let value = try value(tag: tag, depth: 0)
                if name == GGUFKey.alignment { alignment = try checkedAlignment(value, at: valueStart) }
                metadata[name] = value
            }
            keys.append(name)
        }
        key = nil

        var infos: [(name: String, shape: [Int], type: GGMLType, relative: Int, at: Int)] = []
        infos.reserveCapacity(Self.reservation(tensorCount))
        var names = Set<String>()
        names.reserveCapacity(Self.reservation(tensorCount))
        for _ in 0..<tensorCount {
            let entryStart = offset
            tensorName = nil
            let name = try string("a tensor name", maxLength: Self.maxTensorNameLength)
            tensorName = name
            guard names.insert(name).inserted else {
                throw error(.duplicateTensor, "the tensor name appears twice", at: entryStart)
            }
            let info = try tensorInfo()
            infos.append((name, info.shape, info.type, info.relative, entryStart))
        }

        let directoryEnd = offset
        let (padded, overflow) = directoryEnd.addingReportingOverflow(alignment - 1)
        guard !overflow else { throw error(.truncated, "data section offset overflows") }
        let dataOffset = padded / alignment * alignment
        // A file with no tensors may end right after its directory, without padding.
        guard dataOffset <= size || infos.isEmpty else {
            throw error(.truncated, "file ends before the tensor data section at byte \(dataOffset)", at: directoryEnd)
        }

        var tensors: [GGUFTensor] = []
        tensors.reserveCapacity(infos.count)
        for info in infos {
            tensorName = info.name
            tensors.append(
                try tensor(
                    info.name, info.shape, info.type, info.relative, dataOffset: dataOffset, alignment: alignment,
                    entry: info.at))
        }
        tensorName = nil
        return GGUFLayout(
            version: version, metadata: metadata, stringArrays: stringArrays, metadataKeys: keys, tensors: tensors,
            alignment: alignment,
            dataOffset: min(dataOffset, size))
    }

    private func checkedAlignment(_ value: GGUFValue, at position: Int) throws(GGUFError) -> Int {
        guard case .uint32(let raw) = value else {
            throw error(.invalidMetadata, "alignment must be a uint32, found \(value)", at: position)
        }
        guard raw > 0, raw & (raw - 1) == 0 else {
            throw error(.invalidMetadata, "alignment \(raw) is not a power of two", at: position)
        }
        return Int(raw)
    }

    private mutating func tensorInfo() throws(GGUFError) -> (shape: [Int], type: GGMLType, relative: Int) {
        let dimsAt = offset
        let dimensionCount = try load(UInt32.self, "the dimension count")
        guard (1...UInt32(Self.maxDimensions)).contains(dimensionCount) else {
            throw error(.invalidShape, "\(dimensionCount) dimensions; expected 1 to \(Self.maxDimensions)", at: dimsAt)
        }
        var shape: [Int] = []
        shape.reserveCapacity(Int(dimensionCount))
        for axis in 0..<Int(dimensionCount) {
            let at = offset
            let raw = try load(UInt64.self, "dimension \(axis)")
            guard raw > 0, raw <= UInt64(Int.max) else {
                throw error(.invalidShape, "dimension \(axis) is \(raw); it must be positive", at: at)
            }
            shape.append(Int(raw))
        }
        let typeAt = offset
        let rawType = try load(UInt32.self, "the tensor type")
        guard let type = GGMLType(rawValue: rawType) else {
            throw error(
                .unsupportedTensorType, "tensor type \(GGMLType.name(rawValue: rawType)) is not supported", at: typeAt)
        }
        let relativeAt = offset
        let relative = try load(UInt64.self, "the data offset")
        guard relative <= UInt64(size) else {
            throw error(.tensorOutOfBounds, "data offset \(relative) is past the end of the file", at: relativeAt)
        }
        return (shape, type, Int(relative))
    }

    private func tensor(
        _ name: String, _ shape: [Int], _ type: GGMLType, _ relative: Int, dataOffset: Int, alignment: Int, entry: Int
    ) throws(GGUFError) -> GGUFTensor {
        var elements = 1
        for dimension in shape {
            let (product, overflow) = elements.multipliedReportingOverflow(by: dimension)
            guard !overflow else { throw error(.invalidShape, "shape \(shape) has too many elements", at: entry) }
            elements = product
        }
        guard shape[0] % type.blockSize == 0 else {
            throw error(
                .partialBlock,
                "row length \(shape[0]) is not a multiple of the \(type.name) block size \(type.blockSize)",
                at: entry)
        }
        let (byteCount, overflow) = (elements / type.blockSize).multipliedReportingOverflow(by: type.bytesPerBlock)
        guard !overflow else { throw error(.invalidShape, "shape \(shape) has too many bytes", at: entry) }
        guard relative % alignment == 0 else {
            throw error(
                .misalignedTensor, "data offset \(relative) is not a multiple of the alignment \(alignment)", at: entry)
        }
        let start = dataOffset + relative  // both ≤ size + alignment, cannot overflow
        guard byteCount <= size, start <= size - byteCount else {
            throw error(
                .tensorOutOfBounds,
                "data bytes \(start)..<\(start &+ byteCount) (\(byteCount) bytes of \(type.name) \(shape)) reach past the end of the file (\(size) bytes)",
                at: entry)
        }
        return GGUFTensor(name: name, shape: shape, type: type, offset: start, byteCount: byteCount)
    }

    // MARK: Values

    private mutating func value(tag: UInt32, depth: Int) throws(GGUFError) -> GGUFValue {
        switch tag {
        case 0: .uint8(try load(UInt8.self, "a uint8 value"))
        case 1: .int8(try load(Int8.self, "an int8 value"))
        case 2: .uint16(try load(UInt16.self, "a uint16 value"))
        case 3: .int16(try load(Int16.self, "an int16 value"))
        case 4: .uint32(try load(UInt32.self, "a uint32 value"))
        case 5: .int32(try load(Int32.self, "an int32 value"))
        case 6: .float32(Float(bitPattern: try load(UInt32.self, "a float32 value")))
        case 7: try bool()
        case 8: .string(try string("a string value"))
        case 9: try array(depth: depth + 1)
        case 10: .uint64(try load(UInt64.self, "a uint64 value"))
        case 11: .int64(try load(Int64.self, "an int64 value"))
        case 12: .float64(Double(bitPattern: try load(UInt64.self, "a float64 value")))
        default: throw error(.invalidValueType, "value type \(tag) is not a GGUF type", at: offset - 4)
        }
    }

    private mutating func bool() throws(GGUFError) -> GGUFValue {
        let byte = try load(UInt8.self, "a bool value")
        guard byte <= 1 else { throw error(.invalidMetadata, "bool value \(byte) is neither 0 nor 1", at: offset - 1) }
        return .bool(byte == 1)
    }

    /// If the array starting here is a large array of strings, checks every length and returns
    /// where it lies; otherwise leaves the position unchanged and returns `nil`.
    private mutating func locateStringArray() throws(GGUFError) -> StringArrayLocation? {
        guard remaining >= 12,
            UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) == 8,
            UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset + 4, as: UInt64.self))
                >= UInt64(StringArrayLocation.threshold)
        else { return nil }
        offset += 4
        let count = try count(minimumSize: 8, "array elements")
        let start = offset
        for _ in 0..<count {
            let at = offset
            let raw = try load(UInt64.self, "the length of a string in an array")
            guard raw <= UInt64(remaining) else {
                throw error(
                    .countTooLarge, "a string of \(raw) bytes cannot fit in the \(remaining) bytes left in the file",
                    at: at)
            }
            offset += Int(raw)
        }
        return StringArrayLocation(offset: start, count: count)
    }

    /// Smallest encoded size of one element with type `tag` (for count checks).
    private static func minimumSize(tag: UInt32) -> Int? {
        switch tag {
        case 0, 1, 7: 1
        case 2, 3: 2
        case 4, 5, 6: 4
        case 10, 11, 12: 8
        case 8: 8  // the length of an empty string
        case 9: 12  // type tag and count of an empty array
        default: nil
        }
    }

    private mutating func array(depth: Int) throws(GGUFError) -> GGUFValue {
        guard depth <= Self.maxArrayNesting else {
            throw error(.nestingTooDeep, "arrays nested more than \(Self.maxArrayNesting) deep")
        }
        let tagAt = offset
        let tag = try load(UInt32.self, "an array's element type")
        guard let elementSize = Self.minimumSize(tag: tag) else {
            throw error(.invalidValueType, "array element type \(tag) is not a GGUF type", at: tagAt)
        }
        let count = try count(minimumSize: elementSize, "array elements")
        var values: [GGUFValue] = []
        values.reserveCapacity(Self.reservation(count))
        switch tag {
        case 8:
            // Strings dominate big files (vocabularies, merges): read them without per-element dispatch.
            for _ in 0..<count { values.append(.string(try string("a string in an array"))) }
        default:
            for _ in 0..<count { values.append(try value(tag: tag, depth: depth)) }
        }
        return .array(values)
    }
}
