import Foundation
import TestSupport
import Testing

@testable import GGUF

@Suite("Synthetic GGUF files")
struct SyntheticFileTests {
    /// One value of every GGUF type, including nested and empty arrays.
    static let everyValue: [(String, GGUFValue)] = [
        ("u8", .uint8(255)), ("i8", .int8(-128)), ("u16", .uint16(65535)), ("i16", .int16(-32768)),
        ("u32", .uint32(4_000_000_000)), ("i32", .int32(-2_000_000_000)),
        ("u64", .uint64(UInt64.max)), ("i64", .int64(Int64.min)),
        ("f32", .float32(1.5e-6)), ("f64", .float64(-2.25)), ("yes", .bool(true)), ("no", .bool(false)),
        ("text", .string("héllo, 世界 🙂")), ("empty", .string("")),
        ("ints", .array([.int32(1), .int32(-2), .int32(3)])),
        ("strings", .array([.string("a"), .string(""), .string("Ġthe")])),
        ("floats", .array([.float32(0.5), .float32(-1)])),
        ("nested", .array([.array([.uint8(1), .uint8(2)]), .array([]), .array([.uint8(3)])])),
        ("deep", .array([.array([.array([.string("x")])])])),
        ("none", .array([])),
    ]

    static func writer(version: UInt32) -> GGUFWriter {
        var writer = GGUFWriter(version: version)
        writer.add(GGUFKey.architecture, .string("test"))
        for (key, value) in everyValue { writer.add(key, value) }
        writer.addTensor("vec", shape: [5], type: .f32, data: floats([1, 2, 3, 4, 5]))
        writer.addTensor("mat", shape: [64, 3], type: .q8_0, data: Array(repeating: 7, count: 3 * 2 * 34))
        writer.addTensor("k", shape: [256, 2, 1, 2], type: .q4_K, data: Array(repeating: 1, count: 4 * 144))
        return writer
    }

    static func floats(_ values: [Float]) -> [UInt8] {
        values.flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
    }

    @Test(.onTestThreads, arguments: [UInt32(2), 3])
    func roundTripsEveryValueType(version: UInt32) throws {
        let file = try GGUFFile(bytes: Self.writer(version: version).bytes())
        #expect(file.version == version)
        #expect(file.metadataKeys == [GGUFKey.architecture] + Self.everyValue.map(\.0))
        for (key, value) in Self.everyValue { #expect(file.metadata[key] == value, "key \(key)") }
        #expect(file.architecture == "test")
        #expect(file.int("u64") == nil)  // does not fit Int
        #expect(file.int("i64") == Int(Int64.min))
        #expect(file.int("u32") == 4_000_000_000)
        #expect(file.double("f32") == Double(Float(1.5e-6)))
        #expect(file.double("i16") == -32768)
        #expect(file.bool("yes") == true)
        #expect(file.bool("u8") == nil)
        #expect(file.string("text") == "héllo, 世界 🙂")
        #expect(file.stringArray("strings") == ["a", "", "Ġthe"])
        #expect(file.stringArray("ints") == nil)
        #expect(file.intArray("ints") == [1, -2, 3])
        #expect(file.doubleArray("floats") == [0.5, -1])
        #expect(file.stringArray("none") == [])
        #expect(file.metadata["nested"]?.arrayValue?[0].arrayValue?.compactMap(\.intValue) == [1, 2])
    }

    @Test(.onTestThreads) func tensorDirectory() throws {
        let file = try GGUFFile(bytes: Self.writer(version: 3).bytes())
        #expect(file.tensors.map(\.name) == ["vec", "mat", "k"])
        #expect(file.alignment == 32 && file.dataOffset % 32 == 0)
        let vec = try #require(file.tensor(named: "vec"))
        #expect(vec.offset == file.dataOffset && vec.byteCount == 20 && vec.shape == [5] && vec.rowCount == 1)
        #expect(Array(file.bytes(of: vec).bindMemory(to: Float.self)) == [1, 2, 3, 4, 5])
        let mat = try #require(file.tensor(named: "mat"))
        #expect(mat.type == .q8_0 && mat.rowCount == 3 && mat.elementCount == 192 && mat.byteCount == 204)
        #expect(mat.offset == file.dataOffset + 32)
        #expect(file.bytes(of: mat).allSatisfy { $0 == 7 })
        let k = try #require(file.tensor(named: "k"))
        #expect(k.shape == [256, 2, 1, 2] && k.rowCount == 4 && k.rowByteCount == 144 && k.byteCount == 576)
        #expect(file.tensor(named: "missing") == nil)
    }

    @Test(.onTestThreads) func customAlignment() throws {
        var writer = Self.writer(version: 3)
        writer.alignment = 64
        writer.add(GGUFKey.alignment, .uint32(64))
        let file = try GGUFFile(bytes: writer.bytes())
        #expect(file.alignment == 64)
        #expect(file.tensors.allSatisfy { $0.offset % 64 == 0 })
    }

    @Test(.onTestThreads) func mapsFromDisk() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gguf-\(UUID().uuidString).gguf")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(Self.writer(version: 2).bytes()).write(to: url)
        let file = try GGUFFile(path: url.path)
        #expect(file.path == url.path)
        #expect(file.fileSize == (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int))
        #expect(file.baseAddress.load(as: UInt32.self) == 0x4655_4747)
        #expect(file.metadata["nested"] == Self.everyValue.first { $0.0 == "nested" }?.1)
    }

    @Test(.onTestThreads) func metadataOnlyFile() throws {
        var writer = GGUFWriter(version: 3)
        writer.add("a", .string("b"))
        let file = try GGUFFile(bytes: writer.bytes())
        #expect(file.tensors.isEmpty && file.string("a") == "b")
    }

    @Test(.onTestThreads) func typeSizes() {
        #expect(GGMLType.q4_0.rowByteCount(elements: 64) == 36)
        #expect(GGMLType.q4_K.rowByteCount(elements: 1536) == 864)
        #expect(GGMLType.q6_K.rowByteCount(elements: 256) == 210)
        #expect(GGMLType.f16.rowByteCount(elements: 3) == 6)
        #expect(GGMLType.bf16.name == "BF16" && GGMLType.q5_0.name == "Q5_0")
        #expect(GGMLType.name(rawValue: 16) == "IQ2_XXS")
        for type in GGMLType.allCases { #expect(type.bytesPerBlock > 0 && type.blockSize > 0) }
    }
}

@Suite("Large string arrays")
struct LargeStringArrayTests {
    static let tokens = (0..<3000).map { index in
        index % 7 == 0 ? "" : "tok\(index)·Ġ\(String(repeating: "x", count: index % 40))"
    }

    static func bytes() -> [UInt8] {
        var writer = GGUFWriter()
        writer.add(GGUFKey.tokens, .array(tokens.map(GGUFValue.string)))
        writer.add(GGUFKey.merges, .array(["a b", "c d"].map(GGUFValue.string)))
        writer.add(GGUFKey.tokenTypes, .array(tokens.indices.map { .int32(Int32($0 % 5)) }))
        writer.add(GGUFKey.eosTokenID, .uint32(2))
        writer.addTensor("w", shape: [32, 4], type: .q4_0, data: Array(repeating: 3, count: 4 * 18))
        return writer.bytes()
    }

    /// Arrays past the located-array threshold read the same through every accessor.
    @Test(.onTestThreads) func everyAccessorAgrees() throws {
        #expect(Self.tokens.count >= StringArrayLocation.threshold)
        let file = try GGUFFile(bytes: Self.bytes())
        #expect(file.stringArray(GGUFKey.tokens) == Self.tokens)
        #expect(file.value(forKey: GGUFKey.tokens) == .array(Self.tokens.map(GGUFValue.string)))
        #expect(file.metadata[GGUFKey.tokens] == .array(Self.tokens.map(GGUFValue.string)))
        #expect(file.metadata.count == 4 && file.metadataKeys.count == 4)
        #expect(file.stringArray(GGUFKey.merges) == ["a b", "c d"])
        #expect(file.intArray(GGUFKey.tokens) == nil)
        #expect(file.string(GGUFKey.tokens) == nil)
        #expect(file.intArray(GGUFKey.tokenTypes)?.count == Self.tokens.count)
        #expect(file.int(GGUFKey.eosTokenID) == 2)
        #expect(file.value(forKey: "absent") == nil && file.stringArray("absent") == nil)
    }

    /// Random damage to a small file: each attempt throws or yields a file whose every value and
    /// tensor can be read.
    @Test(.onTestThreads) func mutatedSyntheticFile() {
        let original = Self.bytes()
        var generator = SplitMix64(seed: 42)
        var loaded = 0
        for attempt in 0..<2000 {
            var bytes = original
            if attempt % 3 == 0 {
                bytes.removeLast(generator.below(bytes.count))
            } else {
                for _ in 0..<(1 + generator.below(3)) {
                    let at = generator.below(bytes.count)
                    bytes[at] = attempt % 3 == 1 ? UInt8(truncatingIfNeeded: generator.next()) : 0xFF
                }
            }
            do throws(GGUFError) {
                let file = try GGUFFile(bytes: bytes)
                loaded += 1
                #expect(file.metadata.count == file.metadataKeys.count)
                for tensor in file.tensors { #expect(file.bytes(of: tensor).count == tensor.byteCount) }
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
        #expect(loaded > 0 && loaded < 2000)
    }
}
