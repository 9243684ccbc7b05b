import Foundation
import TestSupport
import Testing

@testable import Whisper

/// Writes CTranslate2's model.bin layout, for hand-made files.
struct ModelBinWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    mutating func u32(_ v: UInt32) { for i in 0..<4 { bytes.append(UInt8((v >> (8 * UInt32(i))) & 0xFF)) } }
    mutating func string(_ s: String) {
        u16(UInt16(s.utf8.count + 1))
        bytes += Array(s.utf8) + [0]
    }

    /// A variable: name, rank, dims, type, byte count, bytes.
    mutating func variable(_ name: String, shape: [UInt32], type: UInt8, data: [UInt8], byteCount: UInt32? = nil) {
        string(name)
        u8(UInt8(shape.count))
        for d in shape { u32(d) }
        u8(type)
        u32(byteCount ?? UInt32(data.count))
        bytes += data
    }

    /// A small valid file: two variables and one alias.
    static func sample() -> [UInt8] {
        var w = ModelBinWriter()
        w.u32(6)
        w.string("WhisperSpec")
        w.u32(3)
        w.u32(2)
        w.variable("encoder/num_heads", shape: [], type: 2, data: [8, 0])
        w.variable("decoder/embeddings/weight", shape: [2, 3], type: 4, data: Array(repeating: 0x3C, count: 12))
        w.u32(1)
        w.string("decoder/projection/weight")
        w.string("decoder/embeddings/weight")
        return w.bytes
    }
}

/// The bytes `body` writes.
func bytes(_ body: (inout ModelBinWriter) -> Void) -> [UInt8] {
    var w = ModelBinWriter()
    body(&w)
    return w.bytes
}

@Suite("CTranslate2 model.bin reader")
struct ModelFileTests {
    @Test(.onTestThreads) func readsVariablesScalarsAndAliases() throws {
        let file = try CTranslate2File(bytes: ModelBinWriter.sample())
        #expect(file.version == 6)
        #expect(file.specName == "WhisperSpec")
        #expect(file.specRevision == 3)
        #expect(file.variables.map(\.name) == ["encoder/num_heads", "decoder/embeddings/weight"])
        #expect(file.integer("encoder/num_heads") == 8)
        let embeddings = try #require(file.variable(named: "decoder/projection/weight"))
        #expect(embeddings.name == "decoder/embeddings/weight")
        #expect(embeddings.shape == [2, 3])
        #expect(embeddings.type == .float16)
        #expect(Array(file.bytes(of: embeddings)) == Array(repeating: 0x3C, count: 12))
    }

    /// Every prefix of a valid file is an error that names the damage, never a crash.
    @Test(.onTestThreads) func everyTruncationIsAnError() {
        let whole = ModelBinWriter.sample()
        for length in 0..<whole.count {
            do {
                _ = try CTranslate2File(bytes: Array(whole[0..<length]))
                Issue.record("a file cut at \(length) of \(whole.count) bytes was accepted")
            } catch {
                #expect(error.kind == .truncated || error.kind == .malformed, "cut at \(length): \(error)")
            }
        }
    }

    @Test(
        .onTestThreads,
        arguments: [
            (
                "a variable count the file cannot hold",
                bytes { w in
                    w.u32(6)
                    w.string("WhisperSpec")
                    w.u32(3)
                    w.u32(0xFFFF_FFFF)
                }, WhisperModelError.Kind.truncated
            ),
            (
                "dimensions whose product overflows",
                bytes { w in
                    w.u32(6)
                    w.string("WhisperSpec")
                    w.u32(3)
                    w.u32(1)
                    w.string("x")
                    w.u8(3)
                    w.u32(0xFFFF_FFFF)
                    w.u32(0xFFFF_FFFF)
                    w.u32(0xFFFF_FFFF)
                    w.u8(0)
                    w.u32(4)
                }, .malformed
            ),
            (
                "a huge dimension",
                bytes { w in
                    w.u32(6)
                    w.string("WhisperSpec")
                    w.u32(3)
                    w.u32(1)
                    w.variable("x", shape: [1 << 30], type: 0, data: [0, 0, 0, 0], byteCount: 4)
                }, .malformed
            ),
            (
                "a byte count that does not match the shape",
                bytes { w in
                    w.u32(6)
                    w.string("WhisperSpec")
                    w.u32(3)
                    w.u32(1)
                    w.variable("x", shape: [2], type: 0, data: [0, 0, 0, 0])
                    w.u32(0)
                }, .malformed
            ),
            (
                "a byte count past the end",
                bytes { w in
                    w.u32(6)
                    w.string("WhisperSpec")
                    w.u32(3)
                    w.u32(1)
                    w.variable("x", shape: [1000], type: 0, data: [0, 0, 0, 0], byteCount: 4000)
                }, .truncated
            ),
            (
                "an unknown data type",
                bytes { w in
                    w.u32(6)
                    w.string("WhisperSpec")
                    w.u32(3)
                    w.u32(1)
                    w.variable("x", shape: [1], type: 9, data: [0])
                    w.u32(0)
                }, .unsupported
            ),
            (
                "an unknown version",
                bytes { w in
                    w.u32(99)
                    w.string("WhisperSpec")
                    w.u32(3)
                    w.u32(0)
                    w.u32(0)
                }, .unsupported
            ),
            (
                "a string without its NUL",
                bytes { w in
                    w.u32(6)
                    w.u16(3)
                    w.bytes += Array("abc".utf8)
                    w.u32(3)
                    w.u32(0)
                    w.u32(0)
                }, .malformed
            ),
            (
                "an alias to nothing",
                bytes { w in
                    w.u32(6)
                    w.string("WhisperSpec")
                    w.u32(3)
                    w.u32(0)
                    w.u32(1)
                    w.string("a")
                    w.string("b")
                }, .malformed
            ),
            (
                "bytes after the aliases",
                bytes { w in
                    w.u32(6)
                    w.string("WhisperSpec")
                    w.u32(3)
                    w.u32(0)
                    w.u32(0)
                    w.u8(7)
                }, .malformed
            ),
            (
                "a variable twice",
                bytes { w in
                    w.u32(6)
                    w.string("WhisperSpec")
                    w.u32(3)
                    w.u32(2)
                    w.variable("x", shape: [1], type: 1, data: [0])
                    w.variable("x", shape: [1], type: 1, data: [0])
                    w.u32(0)
                }, .malformed
            ),
        ] as [(String, [UInt8], WhisperModelError.Kind)])
    func damagedFilesAreRefused(_ case: String, _ file: [UInt8], _ kind: WhisperModelError.Kind) {
        #expect(throws: WhisperModelError.self, "\(`case`)") {
            do { _ = try CTranslate2File(bytes: file, path: "damaged.bin") } catch let error as WhisperModelError {
                #expect(error.kind == kind, "\(`case`): \(error)")
                #expect(error.description.hasPrefix("damaged.bin: "))
                throw error
            }
        }
    }

    /// The network's shape comes from the variables, the rules from config.json; a file of
    /// another spec or with a missing variable says which.
    @Test(.onTestThreads) func configNamesWhatIsMissing() throws {
        var w = ModelBinWriter()
        w.u32(6)
        w.string("TransformerSpec")
        w.u32(1)
        w.u32(0)
        w.u32(0)
        let other = try CTranslate2File(bytes: w.bytes, path: "other.bin")
        #expect(throws: WhisperModelError.self) {
            do { _ = try WhisperConfig(file: other, configJSON: Data("{}".utf8), configPath: "config.json") } catch let
                error as WhisperModelError
            {
                #expect(error.kind == .unsupported)
                #expect(error.message.contains("TransformerSpec"))
                throw error
            }
        }
        let sample = try CTranslate2File(bytes: ModelBinWriter.sample(), path: "small.bin")
        #expect(throws: WhisperModelError.self) {
            do { _ = try WhisperConfig(file: sample, configJSON: Data("{}".utf8), configPath: "config.json") } catch let
                error as WhisperModelError
            {
                #expect(error.kind == .missingVariable)
                #expect(error.message.contains("encoder/conv1/weight"))
                throw error
            }
        }
    }
}
