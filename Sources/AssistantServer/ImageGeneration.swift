import ChatStore
import ServerKit
import Synchronization

/// An image model the server calls when a user asks for an image (`sotto serve --image-url`).
/// Sotto has none of its own (no text-to-image weights are packaged for it), so this is off
/// unless configured, and every image it made names its model, which the web app shows.
public struct ImageGeneration: Sendable {
    /// Makes one image for a prompt, of a size from ``sizes`` when one is given. What it throws
    /// is shown to the user as it describes itself: it must not name the endpoint's address.
    public typealias Make =
        @Sendable (_ prompt: String, _ size: String?) async throws -> (
            bytes: [UInt8], mimeType: String
        )

    /// The model's name, as the web app shows it beside each image ("Made by …").
    public var model: String
    /// The sizes a request may ask for.
    public var sizes: [String]
    package let make: Make

    public init(model: String, sizes: [String], make: @escaping Make) {
        self.model = model
        self.sizes = sizes
        self.make = make
    }

    /// The longest prompt taken, in characters.
    package static let maxPromptLength = 1000
}

/// Whether images can be made, as `/api/me` reports it (the assistant composer's image button).
package struct ImageGenerationState: Encodable, Sendable {
    package var available: Bool
    package var model: String?
    package var sizes: [String]?

    package init(_ generation: ImageGeneration?) {
        available = generation != nil
        model = generation?.model
        sizes = generation?.sizes
    }
}

/// The users with an image being made: one at a time each (an image takes tens of seconds of
/// someone else's machine).
package final class ImageGenerationGate: Sendable {
    private let busy = Mutex<Set<UserID>>([])

    /// Marks `user` busy; false when they already were.
    package func enter(_ user: UserID) -> Bool { busy.withLock { $0.insert(user).inserted } }

    package func leave(_ user: UserID) { _ = busy.withLock { $0.remove(user) } }
}
