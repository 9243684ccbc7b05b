/// The store's statements that PostgreSQL spells differently from SQLite, beyond what
/// ``PostgresText`` rewrites: the store picks one or the other by `db.dialect`. Each takes the
/// same parameters, in the same order, as its SQLite twin.
package enum PostgresSQL {
    /// ``ChatStore/searchMessages(_:for:limit:)``'s candidates: the user's, the query
    /// (``tsquery(for:prefixAllowed:)``), the most to read. Newest first, with no time budget:
    /// the GIN index finds every match and PostgreSQL keeps the newest. `+ 0` keeps the planner
    /// from walking `messages` backwards by position instead, computing each row's words: fast
    /// for a common word, but a word common only in channels the user is not in read them all
    /// (1.2 s for 330,000 messages, against 12 ms through the index).
    package static let messageSearch = """
        SELECT m.id, m.cid, m.user_id, m.text, m.created_at, m.parent_id, m.edited_at, m.deleted_at,
            m.position, c.name
        FROM messages m
        JOIN members mb ON mb.cid = m.cid AND mb.user_id = ?
        JOIN channels c ON c.cid = m.cid
        WHERE sotto_search_vector(m.text) @@ sotto_search_query(?)
        ORDER BY m.position + 0 DESC LIMIT ?
        """

    /// ``ChatStore/searchAssistantMessages(_:for:limit:)``'s candidates: the owner, the query
    /// (``tsquery(for:prefixAllowed:)``), the most to read. `role <> 'divider'` is the index's
    /// own condition, which lets PostgreSQL use it; `+ 0` as in ``messageSearch``.
    package static let assistantSearch = """
        SELECT m.position, m.id, m.conversation_id, m.role, m.text, m.input_tokens, m.output_tokens, m.model,
            m.stopped, m.created_at, c.title
        FROM assistant_messages m
        JOIN assistant_conversations c ON c.id = m.conversation_id AND c.owner = ?
        WHERE m.role <> 'divider' AND sotto_search_vector(m.text) @@ sotto_search_query(?)
        ORDER BY m.position + 0 DESC LIMIT ?
        """

    /// The query text for `terms` (``SearchRanking/terms(of:)``), as
    /// `SearchRanking.matchExpression(for:)` means it: any term (OR), as a prefix when
    /// `prefixAllowed` says so.
    ///
    /// Each term is quoted, with `'` and `\` escaped by a backslash, so no input reaches the
    /// query's syntax (`&|!():*<>` are plain text inside quotes); NUL, which a PostgreSQL text
    /// cannot hold, is dropped.
    ///
    /// ```swift
    /// PostgresSQL.tsquery(for: ["cafe", "a"])  // 'cafe':* | 'a'
    /// ```
    package static func tsquery(
        for terms: [String],
        prefixAllowed: (String) -> Bool = { $0.count >= SearchRanking.minimumPrefixLength }
    ) -> String {
        terms.compactMap { term -> String? in
            var quoted = "'"
            for scalar in term.unicodeScalars where scalar != "\0" {
                if scalar == "'" || scalar == "\\" { quoted.unicodeScalars.append("\\") }
                quoted.unicodeScalars.append(scalar)
            }
            guard quoted.count > 1 else { return nil }
            return quoted + (prefixAllowed(term) ? "':*" : "'")
        }
        .joined(separator: " | ")
    }

    /// ``ChatStore/deleteMessage(_:by:asAdministrator:)``'s scrub of the log's copies: the
    /// deletion time, the channel, the two event types, the message id.
    ///
    /// The payload goes through `jsonb`, which writes it back with its keys in its own order
    /// (shorter keys first) and a space after each `:` and `,`, where SQLite keeps the order and
    /// the compact form; the store sends a payload as it is stored, so a client replaying these
    /// events gets that form (the same JSON value).
    package static let eventScrub = """
        UPDATE event_log SET payload = (
            jsonb_set(jsonb_set(payload::jsonb, '{message,text}', '""'), '{message,deleted_at}', to_jsonb(?::text))
                #- '{message,edited_at}' #- '{message,reactions}' #- '{message,attachments}'
        )::text
        WHERE cid = ? AND user_id IS NULL AND type IN (?, ?) AND payload::jsonb #>> '{message,id}' = ?
        """

    /// ``ChatStore/addAssistantBytes(_:for:_:)``: the owner, the change (never below 0).
    package static let quotaAdd = """
        INSERT INTO assistant_usage(owner, bytes) VALUES (?1, GREATEST(?2, 0))
        ON CONFLICT(owner) DO UPDATE SET bytes = GREATEST(assistant_usage.bytes + ?2, 0)
        """
}
