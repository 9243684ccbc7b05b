import Foundation
import TestSupport
import Testing

@testable import GGUF

/// Hand-assembled GGUF bytes, for files the writer would refuse to produce.
struct RawBytes {
    var bytes: [UInt8] = []
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func str(_ s: String) {
        u64(UInt64(s.utf8.count))
        bytes += s.utf8
    }
    mutating func header(version: UInt32 = 3, tensors: UInt64, entries: UInt64) {
        bytes += Array("GGUF".utf8)
        u32(version)
        u64(tensors)
        u64(entries)
    }
    mutating func tensor(_ name: String, dims: [UInt64], type: UInt32, offset: UInt64) {
        str(name)
        u32(UInt32(dims.count))
        for d in dims { u64(d) }
        u32(type)
        u64(offset)
    }
    /// Pads to `alignment` and appends `count` data bytes.
    mutating func data(_ count: Int, alignment: Int = 32) {
        while bytes.count % alignment != 0 { bytes.append(0) }
        bytes += Array(repeating: 0, count: count)
    }
}

@Suite("Malformed GGUF files")
struct MalformedFileTests {
    func failure(_ bytes: [UInt8]) -> GGUFError? {
        do {
            _ = try GGUFFile(bytes: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test(.onTestThreads) func emptyAndBadMagic() {
        #expect(failure([])?.kind == .truncated)
        #expect(failure(Array("GGU".utf8))?.kind == .truncated)
        let error = failure(Array("PK\u{3}\u{4}00000000000000000000".utf8))
        #expect(error?.kind == .badMagic && error?.offset == 0)
        #expect(error?.description.contains("not a GGUF file") == true)
    }

    @Test(.onTestThreads) func versions() {
        var raw = RawBytes()
        raw.header(version: 1, tensors: 0, entries: 0)
        #expect(failure(raw.bytes)?.kind == .unsupportedVersion)
        raw = RawBytes()
        raw.header(version: UInt32(3).byteSwapped, tensors: 0, entries: 0)
        #expect(failure(raw.bytes)?.description.contains("big-endian") == true)
    }

    @Test(.onTestThreads) func absurdCountsFailBeforeAllocating() {
        var raw = RawBytes()
        raw.header(tensors: 1 << 60, entries: 0)
        let tensors = failure(raw.bytes)
        #expect(tensors?.kind == .countTooLarge && tensors?.offset == 8)

        raw = RawBytes()
        raw.header(tensors: 0, entries: UInt64.max)
        let entries = failure(raw.bytes)
        #expect(entries?.kind == .countTooLarge && entries?.offset == 16)

        raw = RawBytes()
        raw.header(tensors: 0, entries: 1)
        raw.u64(1 << 62)  // key length
        raw.bytes += Array(repeating: 0, count: 64)
        let key = failure(raw.bytes)
        #expect(key?.kind == .countTooLarge && key?.offset == 24)

        raw = RawBytes()
        raw.header(tensors: 0, entries: 1)
        raw.str("tokenizer.ggml.tokens")
        raw.u32(9)
        raw.u32(8)
        raw.u64(1 << 60)
        raw.bytes += Array(repeating: 0, count: 64)
        let array = failure(raw.bytes)
        #expect(array?.kind == .countTooLarge && array?.key == "tokenizer.ggml.tokens")
        #expect(array?.description.contains("tokenizer.ggml.tokens") == true)
    }

    @Test(.onTestThreads) func badValues() {
        var raw = RawBytes()
        raw.header(tensors: 0, entries: 1)
        raw.str("k")
        raw.u32(13)
        raw.u64(0)
        let type = failure(raw.bytes)
        #expect(type?.kind == .invalidValueType && type?.key == "k" && type?.offset == 33)

        raw = RawBytes()
        raw.header(tensors: 0, entries: 1)
        raw.str("deep")
        raw.u32(9)
        for _ in 0..<20 {
            raw.u32(9)
            raw.u64(1)
        }
        raw.u32(0)
        raw.u64(0)
        #expect(failure(raw.bytes)?.kind == .nestingTooDeep)

        raw = RawBytes()
        raw.header(tensors: 0, entries: 2)
        for _ in 0..<2 {
            raw.str("same")
            raw.u32(0)
            raw.bytes.append(1)
        }
        let duplicate = failure(raw.bytes)
        #expect(duplicate?.kind == .duplicateKey && duplicate?.key == "same")

        for bad: GGUFValue in [.uint32(48), .uint64(32), .uint32(0)] {
            var writer = GGUFWriter()
            writer.add(GGUFKey.alignment, bad)
            let error = failure(writer.bytes())
            #expect(error?.kind == .invalidMetadata && error?.key == GGUFKey.alignment)
        }
    }

    /// A file with one tensor whose entry is given; the data area holds `dataBytes` bytes.
    func tensorFile(dims: [UInt64], type: UInt32, offset: UInt64 = 0, dataBytes: Int) -> [UInt8] {
        var raw = RawBytes()
        raw.header(tensors: 1, entries: 0)
        raw.tensor("blk.0.attn_q.weight", dims: dims, type: type, offset: offset)
        raw.data(dataBytes)
        return raw.bytes
    }

    @Test(.onTestThreads) func badTensors() {
        #expect(failure(tensorFile(dims: [32, 2], type: 8, dataBytes: 68)) == nil)  // the valid baseline
        let cases: [([UInt64], UInt32, UInt64, Int, GGUFError.Kind)] = [
            ([1, 1, 1, 1, 1], 0, 0, 4, .invalidShape),
            ([], 0, 0, 4, .invalidShape),
            ([4, 0], 0, 0, 16, .invalidShape),
            ([1 << 40, 1 << 40], 0, 0, 16, .invalidShape),
            ([256], 16, 0, 66, .unsupportedTensorType),
            ([33], 8, 0, 68, .partialBlock),
            ([32, 2], 8, 16, 100, .misalignedTensor),
            ([32, 2], 8, 0, 67, .tensorOutOfBounds),
            ([32, 2], 8, 32, 68, .tensorOutOfBounds),
            ([32, 2], 8, UInt64.max - 31, 68, .tensorOutOfBounds),
        ]
        for (dims, type, offset, data, kind) in cases {
            let error = failure(tensorFile(dims: dims, type: type, offset: offset, dataBytes: data))
            #expect(error?.kind == kind, "\(dims) type \(type) offset \(offset): \(String(describing: error))")
            #expect(error?.tensor == "blk.0.attn_q.weight")
        }
        let iq = failure(tensorFile(dims: [256], type: 16, dataBytes: 66))
        #expect(iq?.description.contains("IQ2_XXS") == true)

        var raw = RawBytes()
        raw.header(tensors: 2, entries: 0)
        raw.tensor("t", dims: [4], type: 0, offset: 0)
        raw.tensor("t", dims: [4], type: 0, offset: 32)
        raw.data(64)
        #expect(failure(raw.bytes)?.kind == .duplicateTensor)
    }

    /// Every prefix of a valid file fails cleanly (only the whole file parses).
    @Test(.onTestThreads) func everyTruncationFails() {
        let bytes = SyntheticFileTests.writer(version: 3).bytes()
        for length in 0..<bytes.count {
            let error = failure(Array(bytes[..<length]))
            #expect(error != nil, "prefix of \(length) bytes parsed")
            if let error, ![.truncated, .countTooLarge, .tensorOutOfBounds].contains(error.kind) {
                Issue.record("prefix of \(length) bytes: unexpected \(error)")
            }
        }
    }

    @Test(.onTestThreads) func fileSystemErrors() throws {
        #expect(throws: GGUFError.self) { try GGUFFile(path: "/nonexistent/model.gguf") }
        do {
            _ = try GGUFFile(path: NSTemporaryDirectory())
            Issue.record("a directory opened as a GGUF file")
        } catch {
            #expect(error.kind == .io && error.path == NSTemporaryDirectory())
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gguf-\(UUID().uuidString).gguf")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data([0x47, 0x47, 0x55, 0x46, 3, 0, 0]).write(to: url)
        do {
            _ = try GGUFFile(path: url.path)
            Issue.record("a 7-byte file opened")
        } catch {
            #expect(error.kind == .truncated && error.description.hasPrefix("GGUF error: \(url.path): at byte 4"))
        }
    }
}
