import CZlib

/// The gzip compression ratio faster-whisper rejects repetitive text by: the UTF-8 length over
/// the length of zlib's default compression (Python's `zlib.compress`).
enum CompressionRatio {
    static func of(_ text: String) -> Float {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return 0 }
        var length = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = bytes.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { destination in
                compress2(
                    destination.baseAddress, &length, source.baseAddress, uLong(bytes.count), Z_DEFAULT_COMPRESSION)
            }
        }
        guard status == Z_OK, length > 0 else { return 0 }
        return Float(bytes.count) / Float(length)
    }
}
