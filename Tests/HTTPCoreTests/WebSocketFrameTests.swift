import Foundation
import TestSupport
import Testing

@testable import HTTPCore

@Suite struct WebSocketFrameTests {
    func masked(_ opcode: UInt8, _ payload: [UInt8], final: Bool = true, rsv: UInt8 = 0) -> [UInt8] {
        var frame: [UInt8] = [(final ? 0x80 : 0) | rsv | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask: [UInt8] = [1, 2, 3, 4]
        return frame + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    func events(_ bytes: [UInt8], max: Int = 1000) -> [Result<WebSocketEvent, WebSocketProtocolError>] {
        var decoder = WebSocketFrameDecoder(maxMessageBytes: max)
        decoder.append(bytes)
        var all: [Result<WebSocketEvent, WebSocketProtocolError>] = []
        while let event = decoder.next() { all.append(event) }
        return all
    }

    @Test(.onTestThreads) func fragmentedTextWithAPingBetween() {
        let bytes =
            masked(1, Array("he".utf8), final: false) + masked(9, [7]) + masked(0, Array("llo".utf8), final: true)
        #expect(events(bytes) == [.success(.ping([7])), .success(.text("hello"))])
    }

    @Test(.onTestThreads) func closeFramesCarryTheirCode() {
        #expect(events(masked(8, [0x03, 0xE8] + Array("bye".utf8))) == [.success(.close(code: 1000, reason: "bye"))])
        #expect(events(masked(8, [])) == [.success(.close(code: 1005, reason: ""))])
    }

    @Test(
        .onTestThreads,
        arguments: [
            ("unmasked", [0x81, 0x01, 0x41] as [UInt8], UInt16(1002)),
            ("reserved bit", [0xC1, 0x80, 0, 0, 0, 0] as [UInt8], UInt16(1002)),
            ("unknown opcode", [0x83, 0x80, 0, 0, 0, 0] as [UInt8], UInt16(1002)),
            ("fragmented ping", [0x09, 0x80, 0, 0, 0, 0] as [UInt8], UInt16(1002)),
            ("continuation first", [0x80, 0x80, 0, 0, 0, 0] as [UInt8], UInt16(1002)),
        ])
    func badFrames(name: String, bytes: [UInt8], code: UInt16) {
        let all = events(bytes + masked(1, Array("after".utf8)))
        #expect(all.count == 1, "\(name): nothing is read after a protocol error")
        guard case .failure(let error) = all.first else {
            Issue.record("\(name) accepted")
            return
        }
        #expect(error.code == code, "\(name)")
    }

    @Test(.onTestThreads) func invalidUTF8AndOversizedMessages() {
        guard case .failure(let utf8) = events(masked(1, [0xFF, 0xFE])).first else {
            Issue.record("invalid UTF-8 accepted")
            return
        }
        #expect(utf8.code == 1007)
        guard case .failure(let big) = events(masked(1, [UInt8](repeating: 65, count: 200)), max: 100).first else {
            Issue.record("oversized message accepted")
            return
        }
        #expect(big.code == 1009)
        let pieces =
            masked(1, [UInt8](repeating: 65, count: 60), final: false) + masked(0, [UInt8](repeating: 65, count: 60))
        guard case .failure(let assembled) = events(pieces, max: 100).first else {
            Issue.record("oversized fragmented message accepted")
            return
        }
        #expect(assembled.code == 1009)
    }

    @Test(.onTestThreads) func serverFramesAreUnmaskedWithTheRightLength() {
        #expect(WebSocketFrame.encode(.text, Array("hi".utf8)) == [0x81, 2, 0x68, 0x69])
        let medium = WebSocketFrame.encode(.text, [UInt8](repeating: 0, count: 300))
        #expect(Array(medium.prefix(4)) == [0x81, 126, 1, 44])
        let large = WebSocketFrame.encode(.binary, [UInt8](repeating: 0, count: 70_000))
        #expect(Array(large.prefix(10)) == [0x82, 127, 0, 0, 0, 0, 0, 1, 0x11, 0x70])
    }

    @Test(.onTestThreads) func handshakeAcceptMatchesRFC6455() {
        // RFC 6455 §1.3's example.
        #expect(WebSocketHandshake.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(
            SHA1.hash(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
                == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(SHA1.hash([]).map { String(format: "%02x", $0) }.joined() == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }
}
