import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A GGUF model file: its metadata and tensor directory, parsed and checked, and its bytes mapped
/// read-only so tensor data is read in place, never copied.
///
/// ```swift
/// let file = try GGUFFile(path: "/root/.sotto/models/smollm2-135m.gguf")
/// file.string(GGUFKey.architecture)                 // "llama"
/// let embed = file.tensor(named: "token_embd.weight")!
/// let bytes = file.bytes(of: embed)                  // in the mapping
/// ```
///
/// Every count, length and offset is checked against the file size before it is used, so a
/// damaged or hostile file throws a `GGUFError` instead of crashing or allocating without bound.
///
/// Thread safety: every stored property is a `let` set in `init` (the lazily built `metadata`
/// dictionary sits behind a `Mutex`); the mapping is `PROT_READ` and
/// is only unmapped in `deinit`, when no reference (and so no borrowed buffer obtained under one)
/// remains. Reading it from many threads at once is safe, which is why the class is
/// `@unchecked Sendable`. As with any `mmap`, truncating the file on disk while it is mapped
/// makes later reads of the lost pages fault; Sotto never writes model files in place.
public final class GGUFFile: @unchecked Sendable {
    /// The path the file was opened from.
    public let path: String
    /// The GGUF version (2 or 3).
    public let version: UInt32
    /// Size of the file in bytes.
    public let fileSize: Int
    /// Every metadata value, keyed by name.
    ///
    /// Built on first use and then kept: large string arrays (vocabularies, merge lists) are only
    /// located and checked when the file is opened, and decoded here. Building it for a Qwen file
    /// decodes about 300,000 strings; code that needs one array should prefer `stringArray(_:)`,
    /// and one value `value(forKey:)`, which decode only what they return.
    public var metadata: [String: GGUFValue] {
        allMetadata.withLock { cached in
            if let cached { return cached }
            var all = scalarMetadata
            for (key, location) in stringArrays {
                all[key] = .array(location.strings(in: baseAddress).map(GGUFValue.string))
            }
            cached = all
            return all
        }
    }
    /// Metadata keys in file order.
    public let metadataKeys: [String]
    /// The tensor directory in file order.
    public let tensors: [GGUFTensor]
    /// Alignment of tensor data (`general.alignment`, default 32).
    public let alignment: Int
    /// Absolute offset where the tensor data section starts.
    public let dataOffset: Int

    private let tensorIndex: [String: Int]
    /// Every value except the large string arrays.
    private let scalarMetadata: [String: GGUFValue]
    private let stringArrays: [String: StringArrayLocation]
    private let allMetadata = Mutex<[String: GGUFValue]?>(nil)
    private let storage: UnsafeRawBufferPointer
    private let ownership: Ownership

    /// Lets this process's pages of the header, metadata and tensor directory go (the bytes
    /// before `dataOffset`), once whatever was needed from the metadata has been copied out (a
    /// loaded model's tokenizer and template). The file stays in the page cache and the mapping
    /// valid: a later read faults the pages back in. Does nothing for a file read into memory.
    public func releaseMetadataPages() {
        #if os(Linux)
            guard case .mapped = ownership, let base = storage.baseAddress else { return }
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let end = min(dataOffset, storage.count) / page * page
            if end > 0 { _ = madvise(UnsafeMutableRawPointer(mutating: base), end, MADV_DONTNEED) }
        #endif
    }

    private enum Ownership {
        case mapped
        case allocated
    }

    /// Opens and maps the file at `path` and parses its header, metadata and tensor directory.
    ///
    /// - Throws: `GGUFError` naming the byte offset and key or tensor of the first problem found.
    public convenience init(path: String) throws(GGUFError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw GGUFError(.io, "cannot open: \(Self.systemError())", path: path)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw GGUFError(.io, "cannot inspect: \(Self.systemError())", path: path)
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw GGUFError(.io, "not a regular file", path: path)
        }
        let size = Int(status.st_size)
        guard size > 0 else {
            throw GGUFError(.truncated, "the file is empty", offset: 0, path: path)
        }
        guard let address = mmap(nil, size, PROT_READ, MAP_SHARED, descriptor, 0), address != MAP_FAILED else {
            throw GGUFError(.io, "cannot map \(size) bytes: \(Self.systemError())", path: path)
        }
        let bytes = UnsafeRawBufferPointer(start: address, count: size)
        do {
            try self.init(path: path, bytes: bytes, ownership: .mapped)
        } catch {
            munmap(address, size)
            throw error.at(path: path)
        }
    }

    /// Parses a GGUF image held in memory (a copy is kept). For tests and tools that build files.
    package convenience init(bytes: [UInt8], path: String = "<memory>") throws(GGUFError) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 64)
        bytes.withUnsafeBytes { source in copy.copyMemory(from: source) }
        let view = UnsafeRawBufferPointer(start: copy.baseAddress, count: bytes.count)
        do {
            try self.init(path: path, bytes: view, ownership: .allocated)
        } catch {
            copy.deallocate()
            throw error.at(path: path)
        }
    }

    private init(path: String, bytes: UnsafeRawBufferPointer, ownership: Ownership) throws(GGUFError) {
        let layout = try GGUFParser.parse(bytes)
        self.path = path
        self.storage = bytes
        self.ownership = ownership
        self.fileSize = bytes.count
        self.version = layout.version
        self.scalarMetadata = layout.metadata
        self.stringArrays = layout.stringArrays
        self.metadataKeys = layout.metadataKeys
        self.tensors = layout.tensors
        self.alignment = layout.alignment
        self.dataOffset = layout.dataOffset
        var index: [String: Int] = [:]
        index.reserveCapacity(layout.tensors.count)
        for (position, tensor) in layout.tensors.enumerated() { index[tensor.name] = position }
        self.tensorIndex = index
    }

    deinit {
        switch ownership {
        case .mapped: munmap(UnsafeMutableRawPointer(mutating: storage.baseAddress), storage.count)
        case .allocated: UnsafeMutableRawPointer(mutating: storage.baseAddress)?.deallocate()
        }
    }

    private static func systemError() -> String {
        String(cString: strerror(errno))
    }

    // MARK: Tensors

    /// Start of the mapping (byte 0 of the file). Valid while this object is alive.
    public var baseAddress: UnsafeRawPointer { storage.baseAddress! }

    /// The tensor called `name`, if the file has one.
    public func tensor(named name: String) -> GGUFTensor? {
        tensorIndex[name].map { tensors[$0] }
    }

    /// The tensor's data, in place in the mapping. Valid while this object is alive.
    ///
    /// `tensor` must come from this file (its range was checked when the file was opened).
    public func bytes(of tensor: GGUFTensor) -> UnsafeRawBufferPointer {
        precondition(
            tensor.offset >= 0 && tensor.byteCount >= 0 && tensor.offset <= fileSize - tensor.byteCount,
            "tensor '\(tensor.name)' is not inside \(path)")
        return UnsafeRawBufferPointer(start: baseAddress + tensor.offset, count: tensor.byteCount)
    }

    // MARK: Metadata

    /// `general.architecture`, e.g. `llama` or `qwen2`.
    public var architecture: String? { string(GGUFKey.architecture) }

    /// The value of `key`, decoding only that value if it is a large string array.
    public func value(forKey key: String) -> GGUFValue? {
        if let value = scalarMetadata[key] { return value }
        return stringArray(key).map { .array($0.map(GGUFValue.string)) }
    }

    /// The string value of `key`; `nil` if absent or not a string.
    public func string(_ key: String) -> String? { scalarMetadata[key]?.stringValue }

    /// The integer value of `key` (any integer type that fits `Int`).
    public func int(_ key: String) -> Int? { scalarMetadata[key]?.intValue }

    /// The numeric value of `key` (float types, or integers converted).
    public func double(_ key: String) -> Double? { scalarMetadata[key]?.doubleValue }

    /// The bool value of `key`.
    public func bool(_ key: String) -> Bool? { scalarMetadata[key]?.boolValue }

    /// The array of strings at `key`; `nil` if absent or not an array of strings.
    ///
    /// Decodes the strings from the mapping on each call; keep the result rather than calling
    /// again (a Qwen vocabulary takes a few milliseconds).
    public func stringArray(_ key: String) -> [String]? {
        if let location = stringArrays[key] { return location.strings(in: baseAddress) }
        return array(key, \.stringValue)
    }

    /// The array of integers at `key` (any integer element type that fits `Int`).
    public func intArray(_ key: String) -> [Int]? { array(key, \.intValue) }

    /// The array of numbers at `key` (float or integer elements).
    public func doubleArray(_ key: String) -> [Double]? { array(key, \.doubleValue) }

    private func array<T>(_ key: String, _ element: (GGUFValue) -> T?) -> [T]? {
        guard let values = scalarMetadata[key]?.arrayValue else { return nil }
        var result: [T] = []
        result.reserveCapacity(values.count)
        for value in values {
            guard let converted = element(value) else { return nil }
            result.append(converted)
        }
        return result
    }
}
