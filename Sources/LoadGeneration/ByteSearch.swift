/// Where `needle` first starts in `bytes` (heads of HTTP answers: small, read once each).
func firstIndex(of needle: [UInt8], in bytes: UnsafeRawBufferPointer) -> Int? {
    guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
    for start in 0...(bytes.count - needle.count)
    where bytes[start] == needle[0] && bytes[start..<start + needle.count].elementsEqual(needle) {
        return start
    }
    return nil
}

/// The blank line that ends an HTTP head.
let endOfHTTPHead = Array("\r\n\r\n".utf8)
