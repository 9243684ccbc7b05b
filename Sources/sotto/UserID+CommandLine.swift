import ChatStore

extension UserID {
    /// A user id given on the command line: a malformed one is a usage error naming the rule.
    static func commandLine(_ text: String) throws -> UserID {
        do {
            return try UserID.validated(text)
        } catch {
            throw UsageError(description: "\(error)")
        }
    }
}
