import Foundation
import ServerKit

/// The text written so far and when it was last sent.
///
/// `@unchecked Sendable`: every field is only touched inside `lock`.
package final class TurnProgress: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""
    private var tokens = 0
    private var lastFrame = Date.distantPast

    package func set(_ text: String, _ tokens: Int) {
        lock.lock()
        defer { lock.unlock() }
        self.text = text
        self.tokens = tokens
    }

    package var value: (text: String, tokens: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (text, tokens)
    }

    /// Whether a frame is due, noting it as sent.
    package func due(_ interval: TimeInterval) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        guard now.timeIntervalSince(lastFrame) >= interval else { return false }
        lastFrame = now
        return true
    }
}
