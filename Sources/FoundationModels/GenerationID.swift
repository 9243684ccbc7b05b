import Digests
import Foundation

/// A unique identity for a piece of generated content.
///
/// Content that a session produces carries an id that stays the same across every snapshot of a
/// streamed response, so a partially generated value can be matched with its final form.
public struct GenerationID: Sendable, Hashable {
    private let value: UUID

    /// Creates a new, unique identifier.
    public init() {
        value = UUID()
    }
}

extension GenerationID: CustomDebugStringConvertible {
    public var debugDescription: String { "GenerationID(\(value.uuidString))" }
}

extension GenerationID {
    /// An id derived from `base` and a path inside the content, the same every time: nested
    /// values keep their ids across the snapshots of a stream.
    package init(derivedFrom base: GenerationID, path: String) {
        var bytes = base.value.uuid
        withUnsafeMutableBytes(of: &bytes) { buffer in
            // Two FNV-1a hashes of the path, one per half of the UUID.
            for (half, seed) in [FNV1a.offsetBasis, 0x8422_2325_cbf2_9ce4].enumerated() {
                var hash = FNV1a(seed: seed)
                hash.combine(path.utf8)
                for index in 0..<8 {
                    buffer[half * 8 + index] ^= UInt8(truncatingIfNeeded: hash.value >> (8 * UInt64(index)))
                }
            }
        }
        value = UUID(uuid: bytes)
    }
}

extension GeneratedContent {
    /// This content with `id` at the top, and ids derived from it (by path) on every nested value.
    package func identified(by id: GenerationID) -> GeneratedContent {
        identified(by: id, base: id, path: "$")
    }

    private func identified(by id: GenerationID, base: GenerationID, path: String) -> GeneratedContent {
        var kind = self.kind
        switch kind {
        case .array(let elements):
            kind = .array(
                elements.enumerated().map { index, element in
                    let elementPath = "\(path)[\(index)]"
                    return element.identified(
                        by: GenerationID(derivedFrom: base, path: elementPath), base: base, path: elementPath)
                })
        case .structure(let properties, let keys):
            var identified: [String: GeneratedContent] = [:]
            for (key, value) in properties {
                let propertyPath = "\(path).\(key)"
                identified[key] = value.identified(
                    by: GenerationID(derivedFrom: base, path: propertyPath), base: base, path: propertyPath)
            }
            kind = .structure(properties: identified, orderedKeys: keys)
        default:
            break
        }
        return GeneratedContent(kind: kind, id: id, isComplete: isComplete)
    }
}
