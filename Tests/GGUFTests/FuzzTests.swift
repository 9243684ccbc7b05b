import Foundation
import TestSupport
import Testing

@testable import GGUF

/// Offsets of the structural fields of a valid GGUF image: where counts, lengths, type tags,
/// dimensions and tensor offsets live. Trusts its input (it is only run on a file that parsed).
struct FieldMap {
    var lengths: [Int] = []  // u64 counts and string lengths
    var tags: [Int] = []  // u32 value types, dimension counts, tensor types
    var tensorFields: [Int] = []  // u64 dimensions and data offsets
    var directoryEnd = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        var at = 0
        func u32() -> UInt32 {
            defer { at += 4 }
            return bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)
        }
        func u64() -> UInt64 {
            defer { at += 8 }
            return bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)
        }
        func string() {
            lengths.append(at)
            at += Int(u64())
        }
        func value(_ tag: UInt32) {
            switch tag {
            case 0, 1, 7: at += 1
            case 2, 3: at += 2
            case 4, 5, 6: at += 4
            case 10, 11, 12: at += 8
            case 8: string()
            default:
                tags.append(at)
                let element = u32()
                lengths.append(at)
                let count = u64()
                // Record only the first few elements' fields so huge arrays stay cheap to map.
                for index in 0..<count {
                    let before = (lengths.count, tags.count)
                    value(element)
                    if index >= 4 {
                        lengths.removeSubrange(before.0...)
                        tags.removeSubrange(before.1...)
                    }
                }
            }
        }
        at = 8
        lengths.append(at)
        let tensorCount = u64()
        lengths.append(at)
        let entryCount = u64()
        for _ in 0..<entryCount {
            string()
            tags.append(at)
            value(u32())
        }
        for _ in 0..<tensorCount {
            string()
            tags.append(at)
            let dims = u32()
            for _ in 0..<dims {
                tensorFields.append(at)
                at += 8
            }
            tags.append(at)
            at += 4
            tensorFields.append(at)
            at += 8
        }
        directoryEnd = at
    }
}

@Suite("GGUF fuzzing")
struct FuzzTests {
    /// Mutates the header and directory of a real model thousands of times: each attempt must
    /// either throw a `GGUFError` or produce a directory whose every tensor lies inside the bytes.
    @Test(.onTestThreads) func mutatedRealFile() throws {
        let path = try RealModels.path(RealModels.smollm)
        var image = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped))
        var generator = SplitMix64(seed: 0x5077_0000_6775_6600)
        var outcomes: [String: Int] = [:]
        let attempts = 3000

        image.withUnsafeMutableBytes { buffer in
            let fields = FieldMap(UnsafeRawBufferPointer(buffer))
            let directoryEnd = fields.directoryEnd
            for attempt in 0..<attempts {
                var saved: [(Int, UInt8)] = []
                func poke(_ at: Int, _ byte: UInt8) {
                    saved.append((at, buffer[at]))
                    buffer[at] = byte
                }
                func poke64(_ at: Int, _ value: UInt64) {
                    withUnsafeBytes(of: value.littleEndian) { for (i, b) in $0.enumerated() { poke(at + i, b) } }
                }
                func poke32(_ at: Int, _ value: UInt32) {
                    withUnsafeBytes(of: value.littleEndian) { for (i, b) in $0.enumerated() { poke(at + i, b) } }
                }
                var length = buffer.count
                switch attempt % 5 {
                case 0:  // truncate, mostly inside the header and directory
                    length = generator.below(attempt % 10 == 0 ? buffer.count : directoryEnd + 64)
                case 1:  // flip random bytes in the header and directory
                    for _ in 0..<(1 + generator.below(4)) {
                        let at = generator.below(directoryEnd)
                        poke(at, buffer[at] ^ UInt8(1 + generator.below(255)))
                    }
                case 2:  // an absurd or off-by-some count or length
                    let at = fields.lengths[generator.below(fields.lengths.count)]
                    let current = buffer.loadUnaligned(fromByteOffset: at, as: UInt64.self)
                    let choices: [UInt64] = [
                        1 << 60, UInt64.max, 1 << 63, UInt64(buffer.count - at), UInt64(buffer.count),
                        current &+ 1, current &- 1, current &* 2, 0, generator.next(),
                    ]
                    poke64(at, choices[generator.below(choices.count)])
                case 3:  // a bad type tag or dimension count
                    let at = fields.tags[generator.below(fields.tags.count)]
                    let choices: [UInt32] = [0, 5, 8, 9, 13, 16, 31, UInt32.max, UInt32(generator.below(40))]
                    poke32(at, choices[generator.below(choices.count)])
                default:  // a bad dimension or tensor data offset
                    let at = fields.tensorFields[generator.below(fields.tensorFields.count)]
                    let current = buffer.loadUnaligned(fromByteOffset: at, as: UInt64.self)
                    let choices: [UInt64] = [
                        0, 1, 31, current &+ 32, current &* 1024, UInt64(buffer.count), 1 << 62, UInt64.max,
                        generator.next(),
                    ]
                    poke64(at, choices[generator.below(choices.count)])
                }

                let view = UnsafeRawBufferPointer(rebasing: buffer[..<length])
                do throws(GGUFError) {
                    let layout = try GGUFParser.parse(view)
                    outcomes["loaded", default: 0] += 1
                    for tensor in layout.tensors {
                        let inside = tensor.offset >= layout.dataOffset && tensor.offset + tensor.byteCount <= length
                        let sized = tensor.byteCount == tensor.rowCount * tensor.rowByteCount
                        if !inside || !sized || tensor.offset % layout.alignment != 0 {
                            Issue.record("attempt \(attempt): tensor \(tensor.name) escaped the checks")
                        }
                    }
                } catch {
                    outcomes["\(error.kind)", default: 0] += 1
                    if error.description.isEmpty { Issue.record("empty error description") }
                }
                for (at, byte) in saved.reversed() { buffer[at] = byte }
            }
        }
        print("GGUF fuzz outcomes over \(attempts) attempts:", outcomes.sorted { $0.key < $1.key })
        #expect(outcomes.values.reduce(0, +) == attempts)
        #expect(outcomes.count >= 6, "mutations should reach many different checks")
    }
}
