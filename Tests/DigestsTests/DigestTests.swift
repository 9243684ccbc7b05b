import TestSupport
import Testing

@testable import Digests

@Suite struct DigestTests {
    @Test(.onTestThreads) func sha256KnownAnswers() {
        #expect(SHA256.hex(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // Fed in uneven pieces, the digest is the same as in one go.
        let message = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 31 + 7) }
        var pieces = SHA256()
        var start = 0
        for size in [1, 63, 64, 65, 0, 127, 300] {
            pieces.update(message[start..<(start + size)])
            start += size
        }
        pieces.update(message[start...])
        #expect(pieces.finalize() == SHA256.hex(of: message))
    }

    /// The reference vectors of the FNV authors (64-bit FNV-1a).
    @Test(.onTestThreads) func fnv1aKnownAnswers() {
        #expect(FNV1a().value == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a().hexDigest == "cbf29ce484222325")
        var a = FNV1a()
        a.combine(UInt8(ascii: "a"))
        #expect(a.value == 0xaf63_dc4c_8601_ec8c)
        var foobar = FNV1a()
        foobar.combine("foobar".utf8)
        #expect(foobar.value == 0x8594_4171_f739_67e8)
        // Another seed is another hash of the same bytes; a short value keeps its leading zeros.
        var seeded = FNV1a(seed: 0x8422_2325_cbf2_9ce4)
        seeded.combine("foobar".utf8)
        #expect(seeded.value != foobar.value)
        #expect(FNV1a(seed: 0xABC).hexDigest == "0000000000000abc")
    }
}
