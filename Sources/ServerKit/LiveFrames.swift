import ChatStore

/// Frames sent to a user's open sockets as they happen, outside the event log: progress that a
/// reconnecting client does not need replayed (streamed chips, a job's or an answer's progress).
/// The server's event hub is the one implementation; a component that publishes takes it.
package protocol LiveFrames: Sendable {
    /// Sends `json` to `user`'s open sockets; with `suggestions`, only to those that take reply
    /// suggestions.
    func sendLive(to user: UserID, json: String, suggestions: Bool)
}

extension LiveFrames {
    /// Sends `frame` as JSON to `user`'s open sockets.
    package func send(_ frame: some Encodable, to user: UserID, suggestions: Bool = false) {
        guard let bytes = try? JSONBody.encode(frame) else { return }
        sendLive(to: user, json: String(decoding: bytes, as: UTF8.self), suggestions: suggestions)
    }
}
