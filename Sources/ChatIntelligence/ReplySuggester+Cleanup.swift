// Light post-processing of what the model generated: the schema already bounds the shape, this
// drops what the schema cannot know is wrong.

extension ReplySuggester {
    /// Trims each reply (and quotes around it), removes a "User:" label the model put in front,
    /// and drops empty replies, repeats, replies labelled as someone else, and replies that
    /// repeat a line of the conversation. Keeps at most ``suggestionCount``.
    package static func cleaned(_ raw: [String], messages: some Sequence<ChatMessage>, user: Participant) -> [String] {
        let messages = Array(messages)
        let others = Set(messages.map(\.author).filter { $0.id != user.id }.map { TextMatching.normalized($0.name) })
        var seen = Set(messages.map { TextMatching.key($0.text) })
        var result: [String] = []
        for text in raw {
            var reply = TextMatching.trimmed(text)
            if let (label, rest) = TextMatching.splitLabel(reply) {
                let name = TextMatching.normalized(label)
                if name == TextMatching.normalized(user.name) {
                    reply = TextMatching.trimmed(rest)
                } else if others.contains(name) {
                    continue
                }
            }
            guard !reply.isEmpty, seen.insert(TextMatching.key(reply)).inserted else { continue }
            result.append(reply)
            if result.count == suggestionCount { break }
        }
        return result
    }
}
