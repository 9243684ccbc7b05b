import AudioDecoding
import Foundation
import TestSupport
import Testing

@Suite("Audio input")
struct AudioTests {
    /// A WAV file of `frames` frames of `channels` channels from `encode` (bytes per sample).
    static func wav(format: UInt16, bits: UInt16, channels: UInt16, rate: UInt32, data: [UInt8]) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * UInt32($0))) & 0xFF) } }
        let blockAlign = channels * bits / 8
        var out = Array("RIFF".utf8) + u32(UInt32(36 + data.count)) + Array("WAVE".utf8)
        out += Array("fmt ".utf8) + u32(16) + u16(format) + u16(channels) + u32(rate)
        out += u32(rate * UInt32(blockAlign)) + u16(blockAlign) + u16(bits)
        out += Array("LIST".utf8) + u32(3) + [1, 2, 3, 0]  // an odd chunk to skip, padded
        out += Array("data".utf8) + u32(UInt32(data.count)) + data
        return out
    }

    @Test(.onTestThreads) func readsEveryCommonEncoding() throws {
        // 16-bit stereo: (16384, −16384) averages to 0; (32767, 32767) to 0.99997.
        let s16 = Self.wav(
            format: 1, bits: 16, channels: 2, rate: 8000, data: [0x00, 0x40, 0x00, 0xC0, 0xFF, 0x7F, 0xFF, 0x7F])
        let a = try WAVFile(bytes: s16)
        #expect(a.channels == 2 && a.sampleRate == 8000 && a.samples.count == 2)
        #expect(a.samples[0] == 0 && abs(a.samples[1] - 32767 / 32768) < 1e-6)
        // 24-bit: 0x400000 is 0.5, 0xC00000 is −0.5.
        let s24 = try WAVFile(
            bytes: Self.wav(format: 1, bits: 24, channels: 1, rate: 16000, data: [0, 0, 0x40, 0, 0, 0xC0]))
        #expect(s24.samples == [0.5, -0.5])
        // 32-bit integers and floats, 8-bit unsigned.
        let s32 = try WAVFile(bytes: Self.wav(format: 1, bits: 32, channels: 1, rate: 16000, data: [0, 0, 0, 0x40]))
        #expect(s32.samples == [0.5])
        let f32 = try WAVFile(
            bytes: Self.wav(
                format: 3, bits: 32, channels: 1, rate: 44100,
                data: Array(withUnsafeBytes(of: Float(0.25).bitPattern.littleEndian, Array.init))))
        #expect(f32.samples == [0.25] && f32.isFloat)
        let u8 = try WAVFile(bytes: Self.wav(format: 1, bits: 8, channels: 1, rate: 8000, data: [128, 192, 64]))
        #expect(u8.samples == [0, 0.5, -0.5])
    }

    @Test(
        .onTestThreads,
        arguments: [
            ([UInt8](), "empty"),
            (Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8), "no fmt chunk"),
            (Array("hello world, not audio".utf8), "unrecognized audio format"),
            ([0x1A, 0x45, 0xDF, 0xA3, 0, 0], "WebM"),
            (Array("OggS....".utf8), "Ogg"),
        ])
    func badAudioGetsAClearError(bytes: [UInt8], says: String) {
        #expect(throws: AudioDecodingError.self) {
            do { _ = try AudioInput.samples(of: bytes) } catch let error as AudioDecodingError {
                #expect(error.description.contains(says), "\(error)")
                throw error
            }
        }
    }

    @Test(.onTestThreads) func refusesWhatItCannotRead() {
        let alaw = Self.wav(format: 6, bits: 8, channels: 1, rate: 8000, data: [1, 2])
        #expect(throws: AudioDecodingError.self) { try WAVFile(bytes: alaw) }
        var truncated = Self.wav(format: 1, bits: 16, channels: 1, rate: 8000, data: [1, 2, 3, 4])
        truncated.removeLast(20)  // into the LIST chunk
        #expect(throws: AudioDecodingError.self) { try WAVFile(bytes: truncated) }
        let nan = Self.wav(format: 3, bits: 32, channels: 1, rate: 8000, data: [0, 0, 0xC0, 0x7F])
        #expect(throws: AudioDecodingError.self) { try WAVFile(bytes: nan) }
        #expect(throws: AudioDecodingError.self) {
            try AudioInput.samples(raw: [1, 2, 3], format: .s16le, rate: 16000)
        }
    }

    /// A 1 kHz tone at 48 kHz comes out at 16 kHz with its amplitude and frequency; a 12 kHz
    /// tone (above the new Nyquist frequency) is removed instead of folding to 4 kHz.
    @Test(.onTestThreads) func resamplingKeepsTheBandAndRemovesWhatWouldAlias() {
        func tone(_ hz: Double, rate: Int, seconds: Double) -> [Float] {
            (0..<Int(Double(rate) * seconds)).map { Float(0.5 * sin(2 * Double.pi * hz * Double($0) / Double(rate))) }
        }
        func amplitude(_ x: [Float], hz: Double, rate: Int) -> Double {
            // Correlation with sine and cosine over the middle (edges carry the filter's ramp).
            let middle = x[(x.count / 4)..<(3 * x.count / 4)]
            var s = 0.0, c = 0.0
            for (i, v) in zip(middle.indices, middle) {
                let angle = 2 * Double.pi * hz * Double(i) / Double(rate)
                s += Double(v) * sin(angle)
                c += Double(v) * cos(angle)
            }
            return 2 * (s * s + c * c).squareRoot() / Double(middle.count)
        }
        let down = Resampler.resample(tone(1000, rate: 48000, seconds: 0.5), from: 48000, to: 16000)
        #expect(down.count == 8000)
        #expect(abs(amplitude(down, hz: 1000, rate: 16000) - 0.5) < 0.01)
        let aliased = Resampler.resample(tone(12000, rate: 48000, seconds: 0.5), from: 48000, to: 16000)
        #expect(amplitude(aliased, hz: 4000, rate: 16000) < 0.01)
        let up = Resampler.resample(tone(440, rate: 8000, seconds: 0.5), from: 8000, to: 16000)
        #expect(up.count == 8000)
        #expect(abs(amplitude(up, hz: 440, rate: 16000) - 0.5) < 0.01)
        let odd = Resampler.resample(tone(1000, rate: 44100, seconds: 0.5), from: 44100, to: 16000)
        #expect(abs(amplitude(odd, hz: 1000, rate: 16000) - 0.5) < 0.01)
    }

    @Test(.onTestThreads) func rawPCMIsReadAndResampled() throws {
        let bytes: [UInt8] = [0x00, 0x40, 0x00, 0xC0]
        #expect(try AudioInput.samples(raw: bytes, format: .s16le, rate: 16000) == [0.5, -0.5])
    }
}
