/// What a transcription reads: audio bytes turned into 16 kHz mono floats.
public enum AudioInput {
    /// The rate Whisper takes.
    public static let targetRate = 16_000

    /// The raw sample encodings a client may send without a container.
    public enum RawFormat: String, Sendable, CaseIterable {
        /// Signed 16-bit little-endian integers.
        case s16le
        /// 32-bit little-endian IEEE floats.
        case f32le
    }

    /// 16 kHz mono samples of a WAV file (any rate and common encoding).
    public static func samples(wav bytes: [UInt8]) throws(AudioDecodingError) -> [Float] {
        let file = try WAVFile(bytes: bytes)
        return Resampler.resample(file.samples, from: file.sampleRate, to: targetRate)
    }

    /// 16 kHz mono samples of raw `format` samples at `rate` with `channels` interleaved channels.
    public static func samples(raw bytes: [UInt8], format: RawFormat, rate: Int, channels: Int = 1)
        throws(AudioDecodingError) -> [Float]
    {
        guard rate >= 1000 && rate <= 768_000 else {
            throw AudioDecodingError("the sample rate \(rate) Hz is not one audio uses")
        }
        guard channels >= 1 && channels <= 32 else { throw AudioDecodingError("\(channels) channels") }
        let width = format == .s16le ? 2 : 4
        let frameBytes = width * channels
        guard bytes.count % frameBytes == 0 else {
            throw AudioDecodingError(
                "\(bytes.count) bytes is not a whole number of \(channels)-channel \(format.rawValue) frames")
        }
        let frames = bytes.count / frameBytes
        var mono = [Float](repeating: 0, count: frames)
        bytes.withUnsafeBytes { raw in
            for f in 0..<frames {
                var sum: Float = 0
                for c in 0..<channels {
                    sum += WAVFile.sample(raw, at: f * frameBytes + c * width, width: width, isFloat: format == .f32le)
                }
                mono[f] = sum / Float(channels)
            }
        }
        for value in mono where !value.isFinite { throw AudioDecodingError("the samples hold NaN or infinity") }
        return Resampler.resample(mono, from: rate, to: targetRate)
    }

    /// Samples of `bytes` whatever they are: WAV by its header, else an error naming what is
    /// accepted (browsers' WebM/Ogg recordings are recognized and refused by name).
    public static func samples(of bytes: [UInt8]) throws(AudioDecodingError) -> [Float] {
        if WAVFile.matches(bytes) { return try samples(wav: bytes) }
        let head = Array(bytes.prefix(4))
        if head == [0x1A, 0x45, 0xDF, 0xA3] {
            throw AudioDecodingError("WebM/Matroska audio is not supported; send WAV, or raw 16 kHz PCM (audio/L16)")
        }
        if head == Array("OggS".utf8) {
            throw AudioDecodingError("Ogg audio is not supported; send WAV, or raw 16 kHz PCM (audio/L16)")
        }
        if bytes.isEmpty { throw AudioDecodingError("the audio file is empty") }
        throw AudioDecodingError("unrecognized audio format; send WAV, or raw 16 kHz PCM (audio/L16)")
    }
}
