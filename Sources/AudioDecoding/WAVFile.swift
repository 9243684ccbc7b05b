/// A RIFF/WAVE file's samples: PCM integers of 8, 16, 24 or 32 bits, or IEEE floats of 32 or 64
/// bits (`WAVE_FORMAT_EXTENSIBLE` with either subformat too), any rate, any channel count —
/// mixed down to mono floats in −1…1.
///
/// ```swift
/// let wav = try WAVFile(bytes: data)
/// let samples = Resampler.resample(wav.samples, from: wav.sampleRate, to: 16_000)
/// ```
public struct WAVFile: Sendable {
    /// Mono samples, the channels averaged.
    public let samples: [Float]
    public let sampleRate: Int
    /// Channels in the file.
    public let channels: Int
    public let bitsPerSample: Int
    public let isFloat: Bool

    /// Whether `bytes` start like a WAVE file.
    public static func matches(_ bytes: some Collection<UInt8>) -> Bool {
        let head = Array(bytes.prefix(12))
        return head.count == 12 && head[0..<4] == [0x52, 0x49, 0x46, 0x46] && head[8..<12] == [0x57, 0x41, 0x56, 0x45]
    }

    public init(bytes: [UInt8]) throws(AudioDecodingError) {
        guard Self.matches(bytes) else { throw AudioDecodingError("not a WAV file (no RIFF/WAVE header)") }
        var offset = 12
        var format: (tag: Int, channels: Int, rate: Int, bits: Int, blockAlign: Int)?
        var data: Range<Int>?
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            // A streaming writer may leave the data size at 0 or 0xFFFFFFFF: the rest is data.
            let end =
                id == "data" && (size == 0 || size == 0xFFFF_FFFF || body + size > bytes.count)
                ? bytes.count : body + size
            guard end <= bytes.count else {
                throw AudioDecodingError("the WAV chunk '\(id)' at byte \(offset) runs past the end of the file")
            }
            if id == "fmt " {
                guard size >= 16 else { throw AudioDecodingError("the WAV fmt chunk is \(size) bytes (at least 16)") }
                var tag = u16(body)
                if tag == 0xFFFE {  // WAVE_FORMAT_EXTENSIBLE: the subformat GUID starts with the tag
                    guard size >= 40 else {
                        throw AudioDecodingError("the extensible WAV fmt chunk is \(size) bytes (40)")
                    }
                    tag = u16(body + 24)
                }
                format = (tag, u16(body + 2), u32(body + 4), u16(body + 14), u16(body + 12))
            } else if id == "data" {
                data = body..<end
                break
            }
            offset = end + (end - body) % 2  // chunks are padded to even sizes
        }
        guard let format else { throw AudioDecodingError("the WAV file has no fmt chunk") }
        guard let data else { throw AudioDecodingError("the WAV file has no data chunk") }
        guard format.tag == 1 || format.tag == 3 else {
            throw AudioDecodingError(
                "WAV format \(format.tag) is not supported (PCM integers or IEEE floats only; send 16-bit PCM)")
        }
        let isFloat = format.tag == 3
        guard
            (isFloat && (format.bits == 32 || format.bits == 64))
                || (!isFloat && [8, 16, 24, 32].contains(format.bits))
        else {
            throw AudioDecodingError(
                "\(format.bits)-bit \(isFloat ? "float" : "integer") WAV samples are not supported")
        }
        guard format.channels >= 1 && format.channels <= 32 else {
            throw AudioDecodingError("the WAV file says \(format.channels) channels")
        }
        guard format.rate >= 1000 && format.rate <= 768_000 else {
            throw AudioDecodingError("the WAV sample rate \(format.rate) Hz is not one audio uses")
        }
        let width = format.bits / 8
        let frameBytes = width * format.channels
        let frames = data.count / frameBytes
        var samples = [Float](repeating: 0, count: frames)
        let scale = 1 / Float(format.channels)
        bytes.withUnsafeBytes { raw in
            for f in 0..<frames {
                var sum: Float = 0
                for c in 0..<format.channels {
                    let at = data.lowerBound + f * frameBytes + c * width
                    sum += Self.sample(raw, at: at, width: width, isFloat: isFloat)
                }
                samples[f] = sum * scale
            }
        }
        if isFloat, samples.contains(where: { !$0.isFinite }) {
            throw AudioDecodingError("the WAV file's float samples hold NaN or infinity")
        }
        self.samples = samples
        sampleRate = format.rate
        channels = format.channels
        bitsPerSample = format.bits
        self.isFloat = isFloat
    }

    @inline(__always)
    static func sample(_ raw: UnsafeRawBufferPointer, at: Int, width: Int, isFloat: Bool) -> Float {
        if isFloat {
            if width == 4 {
                return Float(bitPattern: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian)
            }
            let value = Double(bitPattern: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian)
            return Float(value)
        }
        switch width {
        case 1: return (Float(raw[at]) - 128) / 128  // 8-bit WAV is unsigned
        case 2:
            return Float(Int16(bitPattern: raw.loadUnaligned(fromByteOffset: at, as: UInt16.self).littleEndian)) / 32768
        case 3:
            let value = Int32(raw[at]) << 8 | Int32(raw[at + 1]) << 16 | Int32(raw[at + 2]) << 24
            return Float(value >> 8) / 8_388_608
        default:
            return Float(Int32(bitPattern: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian))
                / 2_147_483_648
        }
    }
}
