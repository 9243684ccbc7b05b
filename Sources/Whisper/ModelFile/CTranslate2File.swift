#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// CTranslate2's `model.bin`, memory-mapped: the spec name and revision, then every variable
/// (name, shape, data type and bytes) and the aliases that let one variable stand for another.
///
/// The layout (little-endian; CTranslate2's `model_spec.py` writes it, binary version 6): `u32`
/// version; a string spec name; `u32` revision; `u32` variable count; per variable a string
/// name, `u8` rank, `u32 × rank` dimensions, `u8` data type, `u32` byte count, the bytes (not
/// aligned); `u32` alias count and (alias, target) string pairs. A string is a `u16` length
/// counting its closing NUL, then the bytes and the NUL. Every count and length is checked
/// against the file size before it is used.
///
/// ```swift
/// let file = try CTranslate2File(path: "whisper-base/model.bin")
/// file.variable(named: "encoder/conv1/weight")?.shape   // [512, 80, 3]
/// ```
// @unchecked Sendable: an immutable view of a read-only mapping that lives as long as the object.
public final class CTranslate2File: @unchecked Sendable {
    /// CTranslate2's `DataType` numbering.
    public enum DataType: UInt8, Sendable {
        case float32 = 0
        case int8 = 1
        case int16 = 2
        case int32 = 3
        case float16 = 4
        case bfloat16 = 5

        /// Bytes per element.
        public var size: Int {
            switch self {
            case .int8: 1
            case .int16, .float16, .bfloat16: 2
            case .float32, .int32: 4
            }
        }
    }

    /// One variable: where its bytes are in the file.
    public struct Variable: Sendable, Equatable {
        public let name: String
        /// Dimensions, outermost first (a linear weight is `[out, in]`).
        public let shape: [Int]
        public let type: DataType
        /// Offset of the first byte in the file.
        public let offset: Int
        public let byteCount: Int

        /// Elements (the product of the shape; 1 for a scalar).
        public var count: Int { shape.reduce(1, *) }
    }

    /// The binary versions this reader knows (5 added the data type byte as written today; 6
    /// is what CTranslate2 4.x writes).
    public static let supportedVersions: ClosedRange<UInt32> = 5...6

    public let path: String
    public let version: UInt32
    /// The spec's name, e.g. `WhisperSpec`.
    public let specName: String
    public let specRevision: UInt32
    /// The variables in file order.
    public let variables: [Variable]
    /// Alias → the variable it stands for.
    public let aliases: [String: String]
    public let fileSize: Int

    private let index: [String: Int]
    private let storage: UnsafeRawBufferPointer
    private let mapped: Bool

    /// Maps and reads the file at `path`.
    public convenience init(path: String) throws(WhisperModelError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw WhisperModelError(.io, "cannot open: \(Self.systemError())", path: path) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw WhisperModelError(.io, "cannot inspect: \(Self.systemError())", path: path)
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw WhisperModelError(.io, "not a regular file", path: path)
        }
        let size = Int(status.st_size)
        guard size > 0 else { throw WhisperModelError(.truncated, "the file is empty", offset: 0, path: path) }
        guard let address = mmap(nil, size, PROT_READ, MAP_SHARED, descriptor, 0), address != MAP_FAILED else {
            throw WhisperModelError(.io, "cannot map \(size) bytes: \(Self.systemError())", path: path)
        }
        do {
            try self.init(path: path, bytes: UnsafeRawBufferPointer(start: address, count: size), mapped: true)
        } catch {
            munmap(address, size)
            throw error
        }
    }

    /// Reads a copy of `bytes` (tests: hand-made and damaged files).
    package convenience init(bytes: [UInt8], path: String = "<memory>") throws(WhisperModelError) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 64)
        bytes.withUnsafeBytes { copy.copyMemory(from: $0) }
        do {
            try self.init(
                path: path, bytes: UnsafeRawBufferPointer(start: copy.baseAddress, count: bytes.count), mapped: false)
        } catch {
            copy.deallocate()
            throw error
        }
    }

    private init(path: String, bytes: UnsafeRawBufferPointer, mapped: Bool) throws(WhisperModelError) {
        var reader = Reader(bytes: bytes, path: path)
        let version = try reader.u32("the binary version")
        guard Self.supportedVersions.contains(version) else {
            throw WhisperModelError(
                .unsupported,
                "binary version \(version) is not one this reader knows (\(Self.supportedVersions.lowerBound)…\(Self.supportedVersions.upperBound))",
                offset: 0, path: path)
        }
        let specName = try reader.string("the spec name")
        let revision = try reader.u32("the spec revision")
        let count = try reader.u32("the variable count")
        // Each variable takes at least 2 + 1 + 1 + 4 bytes; a count the rest of the file cannot
        // hold is rejected before anything is reserved for it.
        guard Int(count) <= reader.remaining / 8 else {
            throw WhisperModelError(
                .truncated, "\(count) variables cannot fit in the \(reader.remaining) bytes left",
                offset: reader.offset - 4, path: path)
        }
        var variables: [Variable] = []
        variables.reserveCapacity(Int(count))
        var index: [String: Int] = [:]
        for number in 0..<Int(count) {
            let start = reader.offset
            let name = try reader.string("the name of variable \(number)")
            let rank = Int(try reader.u8("the rank of '\(name)'"))
            guard rank <= 8 else {
                throw WhisperModelError(.malformed, "'\(name)' has rank \(rank) (at most 8)", offset: start, path: path)
            }
            var shape: [Int] = []
            var elements = 1
            for axis in 0..<rank {
                let dimension = Int(try reader.u32("dimension \(axis) of '\(name)'"))
                let (product, overflow) = elements.multipliedReportingOverflow(by: dimension)
                guard !overflow, product <= 1 << 40 else {
                    throw WhisperModelError(
                        .malformed,
                        "'\(name)' has dimensions \(shape + [dimension]), more elements than any file holds",
                        offset: reader.offset - 4, path: path)
                }
                elements = product
                shape.append(dimension)
            }
            let code = try reader.u8("the data type of '\(name)'")
            guard let type = DataType(rawValue: code) else {
                throw WhisperModelError(
                    .unsupported, "'\(name)' has data type \(code), not one of CTranslate2's 0…5",
                    offset: reader.offset - 1, path: path)
            }
            let byteCount = Int(try reader.u32("the byte count of '\(name)'"))
            guard byteCount == elements * type.size else {
                throw WhisperModelError(
                    .malformed,
                    "'\(name)' says \(byteCount) bytes, but \(shape) of \(type) is \(elements * type.size)",
                    offset: reader.offset - 4, path: path)
            }
            let offset = try reader.skip(byteCount, "the data of '\(name)'")
            guard index[name] == nil else {
                throw WhisperModelError(.malformed, "variable '\(name)' appears twice", offset: start, path: path)
            }
            index[name] = variables.count
            variables.append(Variable(name: name, shape: shape, type: type, offset: offset, byteCount: byteCount))
        }
        let aliasCount = try reader.u32("the alias count")
        guard Int(aliasCount) <= reader.remaining / 6 else {
            throw WhisperModelError(
                .truncated, "\(aliasCount) aliases cannot fit in the \(reader.remaining) bytes left",
                offset: reader.offset - 4, path: path)
        }
        var aliases: [String: String] = [:]
        for number in 0..<Int(aliasCount) {
            let start = reader.offset
            let alias = try reader.string("alias \(number)")
            let target = try reader.string("the target of alias '\(alias)'")
            guard index[target] != nil else {
                throw WhisperModelError(
                    .malformed, "alias '\(alias)' names '\(target)', which is not a variable", offset: start, path: path
                )
            }
            aliases[alias] = target
        }
        guard reader.remaining == 0 else {
            throw WhisperModelError(
                .malformed, "\(reader.remaining) bytes follow the aliases", offset: reader.offset, path: path)
        }
        self.path = path
        self.version = version
        self.specName = specName
        self.specRevision = revision
        self.variables = variables
        self.aliases = aliases
        self.fileSize = bytes.count
        self.index = index
        self.storage = bytes
        self.mapped = mapped
    }

    deinit {
        if mapped {
            munmap(UnsafeMutableRawPointer(mutating: storage.baseAddress), storage.count)
        } else {
            UnsafeMutableRawPointer(mutating: storage.baseAddress)?.deallocate()
        }
    }

    /// The variable called `name`, following an alias.
    public func variable(named name: String) -> Variable? {
        if let position = index[name] { return variables[position] }
        return aliases[name].flatMap { index[$0] }.map { variables[$0] }
    }

    /// The bytes of `variable` (one of this file's).
    public func bytes(of variable: Variable) -> UnsafeRawBufferPointer {
        precondition(
            variable.offset >= 0 && variable.offset <= fileSize - variable.byteCount, "not a variable of \(path)")
        return UnsafeRawBufferPointer(start: storage.baseAddress! + variable.offset, count: variable.byteCount)
    }

    /// A scalar variable's value as an integer (the spec's flags and head counts), or nil.
    public func integer(_ name: String) -> Int? {
        guard let v = variable(named: name), v.count == 1 else { return nil }
        let p = bytes(of: v)
        switch v.type {
        case .int8: return Int(p.load(as: Int8.self))
        case .int16: return Int(p.loadUnaligned(as: Int16.self).littleEndian)
        case .int32: return Int(p.loadUnaligned(as: Int32.self).littleEndian)
        case .float32, .float16, .bfloat16: return nil
        }
    }

    private static func systemError() -> String { String(cString: strerror(errno)) }
}

/// A cursor over the file that checks every read against its end.
private struct Reader {
    let bytes: UnsafeRawBufferPointer
    let path: String
    var offset = 0

    var remaining: Int { bytes.count - offset }

    mutating func skip(_ count: Int, _ what: String) throws(WhisperModelError) -> Int {
        guard count >= 0, count <= remaining else {
            throw WhisperModelError(
                .truncated, "\(what) needs \(count) bytes but \(remaining) are left", offset: offset, path: path)
        }
        let start = offset
        offset += count
        return start
    }

    mutating func u8(_ what: String) throws(WhisperModelError) -> UInt8 {
        let at = try skip(1, what)
        return bytes[at]
    }

    mutating func u16(_ what: String) throws(WhisperModelError) -> UInt16 {
        let at = try skip(2, what)
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    mutating func u32(_ what: String) throws(WhisperModelError) -> UInt32 {
        let at = try skip(4, what)
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(bytes[at + i]) << (8 * i) }
        return value
    }

    /// A `u16` length counting a closing NUL, then the UTF-8 bytes and the NUL.
    mutating func string(_ what: String) throws(WhisperModelError) -> String {
        let length = Int(try u16("the length of \(what)"))
        guard length >= 1 else {
            throw WhisperModelError(.malformed, "\(what) has length 0 (no NUL)", offset: offset - 2, path: path)
        }
        let at = try skip(length, what)
        guard bytes[at + length - 1] == 0 else {
            throw WhisperModelError(.malformed, "\(what) does not end in NUL", offset: at, path: path)
        }
        let text = UnsafeRawBufferPointer(rebasing: bytes[at..<(at + length - 1)])
        guard let decoded = String(validating: text, as: UTF8.self) else {
            throw WhisperModelError(.malformed, "\(what) is not UTF-8", offset: at, path: path)
        }
        return decoded
    }
}
