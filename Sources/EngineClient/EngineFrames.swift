import Foundation

/// How messages travel between the engine service and its clients: each is a JSON document
/// preceded by its length, four bytes big-endian.
package enum EngineFrames {
    /// The largest frame: a request with a 20 MB image, in base64, with room to spare.
    package static let maximumLength = 64 * 1024 * 1024

    /// `payload` as a frame.
    package static func frame(_ payload: Data) -> Data {
        precondition(payload.count <= maximumLength, "an engine frame is limited to \(maximumLength) bytes")
        var frame = Data(capacity: payload.count + 4)
        let length = UInt32(payload.count)
        frame.append(contentsOf: [
            UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF),
        ])
        frame.append(payload)
        return frame
    }

    /// Splits a byte stream into frames: a state machine fed what the socket gives.
    package struct Decoder {
        private var buffer: [UInt8] = []
        private var start = 0

        package init() {}

        /// Takes more bytes; returns the frames they complete.
        ///
        /// - Throws: ``FrameError`` for a frame longer than the limit.
        package mutating func feed(_ bytes: [UInt8]) throws(FrameError) -> [Data] {
            buffer += bytes
            var frames: [Data] = []
            while buffer.count - start >= 4 {
                let length =
                    Int(buffer[start]) << 24 | Int(buffer[start + 1]) << 16 | Int(buffer[start + 2]) << 8
                    | Int(buffer[start + 3])
                guard length <= maximumLength else { throw FrameError(length: length) }
                guard buffer.count - start - 4 >= length else { break }
                frames.append(Data(buffer[(start + 4)..<(start + 4 + length)]))
                start += 4 + length
            }
            if start > 0, start * 2 >= buffer.count {
                buffer.removeFirst(start)
                start = 0
            }
            return frames
        }

        /// Bytes of a frame that has not finished.
        package var pendingByteCount: Int { buffer.count - start }
    }

    /// A frame announced a length over the limit.
    package struct FrameError: Swift.Error, CustomStringConvertible {
        package let length: Int
        package var description: String {
            "an engine frame of \(length) bytes is over the limit of \(EngineFrames.maximumLength)"
        }
    }
}
