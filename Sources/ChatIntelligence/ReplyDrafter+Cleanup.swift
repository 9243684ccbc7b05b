// Light post-processing of what the model generated: the schema already bounds the shape, this
// drops what the schema cannot know is wrong.

extension ReplyDrafter {
    /// Trims each reply (and quotes around it), removes a "User:" label the model put in front
    /// and the user's own name used to address someone ("Great news, Chris!" sent by Chris),
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
            reply = withoutVocative(reply, name: user.name)
            guard !reply.isEmpty, seen.insert(TextMatching.key(reply)).inserted else { continue }
            result.append(reply)
            if result.count == suggestionCount { break }
        }
        return result
    }

    /// `reply` without `name` as a form of address: ", Name" before the final punctuation, or a
    /// leading "Name, ". A user does not address themself; the model writes it when it loses
    /// track of whose side it drafts from. Names in other positions are kept.
    static func withoutVocative(_ reply: String, name: String) -> String {
        let name = TextMatching.trimmed(name).lowercased()
        guard !name.isEmpty else { return reply }
        var body = Substring(reply)
        var ending = ""
        while let last = body.last, ".!?…".contains(last) {
            ending = String(last) + ending
            body = body.dropLast()
        }
        let trailing = ", " + name
        if body.lowercased().hasSuffix(trailing), body.count > trailing.count {
            return String(body.dropLast(trailing.count)) + ending
        }
        let leading = name + ", "
        if reply.lowercased().hasPrefix(leading), reply.count > leading.count {
            let rest = reply.dropFirst(leading.count)
            return rest.prefix(1).uppercased() + rest.dropFirst()
        }
        return reply
    }
}
