import Foundation

/// A message found by ``ChatStore/searchMessages(_:for:limit:)``.
public struct SearchHit: Hashable, Sendable, Codable {
    public var message: Message
    public var channelName: String
    /// The ranking score (higher first): see ``SearchRanking``.
    public var score: Int
    /// The matched words of `message.text`, as `[start, end)` offsets in UTF-16 code units (what
    /// a browser's string indexes count), in order.
    public var highlights: [[Int]]

    public init(message: Message, channelName: String, score: Int, highlights: [[Int]]) {
        self.message = message
        self.channelName = channelName
        self.score = score
        self.highlights = highlights
    }

    enum CodingKeys: String, CodingKey {
        case message, score, highlights
        case channelName = "channel_name"
    }
}

extension ChatStore {
    /// Indexes the messages past the search index's mark and moves the mark: the writer runs it
    /// once before committing a transaction that inserted messages (`WriterMemory`).
    ///
    /// FTS5 writes what it holds to disk at every savepoint, and the writer gives each write of a
    /// group commit its own savepoint: indexing in a trigger made every message a segment of its
    /// own, and a batch of twenty cost nearly twenty times one. A message is indexed before it
    /// is edited or deleted (``ChatStore/editMessage(_:text:by:)`` calls this first), as the
    /// update trigger removes its old words.
    ///
    /// On PostgreSQL the index is an expression index over `messages`, kept by PostgreSQL
    /// itself: nothing to do.
    static func indexNewMessages(_ db: Connection) throws {
        guard db.dialect == .sqlite else { return }
        try db.run(
            """
            INSERT INTO message_search(rowid, text)
            SELECT position, text FROM messages WHERE position > (SELECT indexed_through FROM message_search_state)
            """)
        try db.run("UPDATE message_search_state SET indexed_through = (SELECT MAX(position) FROM messages)")
    }
}

/// How search results are ranked, in the app's own code rather than by SQLite's `bm25`: the
/// same query over the same messages always gives the same order.
///
/// Words are compared case- and accent-insensitively. A message scores, for each query term,
/// 3 when one of its words is the term and 1 when a word only starts with it; 4 more when the
/// whole query appears in it as a phrase. Ties go to the newer message.
///
/// What a search may cost is bounded: at most ``maxTerms`` terms of at most ``maxTermLength``
/// characters; a term shorter than ``minimumPrefixLength`` matches whole words only (a prefix
/// of one letter would make the index merge the lists of every word starting with it); the
/// index is read newest first and stops after ``ChatStore/searchCandidates`` candidates or
/// ``ChatStore/searchTimeBudget``, whichever comes first (the newest candidates found by then
/// are ranked).
public enum SearchRanking {
    /// Most query terms used.
    public static let maxTerms = 5
    /// Longest term, in characters; a longer word is cut to it (as a prefix).
    public static let maxTermLength = 32
    /// Terms at least this long match as prefixes (`plan` finds `planning`); shorter ones match
    /// whole words.
    public static let minimumPrefixLength = 2

    /// The query's terms: runs of letters and digits, folded, at most ``maxTerms`` of at most
    /// ``maxTermLength`` characters, repeats dropped.
    public static func terms(of query: String) -> [String] {
        var seen = Set<String>()
        return words(in: query).map { String($0.folded.prefix(maxTermLength)) }.filter { seen.insert($0).inserted }
            .prefix(maxTerms).map { $0 }
    }

    /// The FTS5 query that finds candidates: any term, as a prefix when it is long enough. Terms
    /// are letters and digits only, quoted, so no input reaches FTS5's syntax.
    static func matchExpression(for terms: [String]) -> String {
        terms.map { $0.count >= minimumPrefixLength ? "\"\($0)\"*" : "\"\($0)\"" }.joined(separator: " OR ")
    }

    /// The score of `text` for `terms`, and the ranges of its matching words.
    public static func score(_ text: String, terms: [String]) -> (score: Int, highlights: [[Int]]) {
        let words = words(in: text)
        var score = 0
        for term in terms {
            if words.contains(where: { $0.folded == term }) {
                score += 3
            } else if words.contains(where: { $0.folded.hasPrefix(term) }) {
                score += 1
            }
        }
        if terms.count > 1 {
            let folded = words.map(\.folded)
            let phrase = (0...(max(0, folded.count - terms.count))).contains { start in
                start + terms.count <= folded.count
                    && zip(folded[start..<(start + terms.count)], terms).allSatisfy { word, term in
                        word == term || word.hasPrefix(term)
                    }
            }
            if phrase { score += 4 }
        }
        let highlights = words.filter { word in terms.contains { word.folded.hasPrefix($0) } }.map {
            [$0.start, $0.end]
        }
        return (score, highlights)
    }

    struct Word {
        var folded: String
        /// UTF-16 offsets in the text.
        var start: Int
        var end: Int
    }

    /// Runs of letters and digits (as FTS5's `unicode61` tokenizer splits), folded to lowercase
    /// without accents.
    static func words(in text: String) -> [Word] {
        var words: [Word] = []
        var current = ""
        var start = 0
        var offset = 0
        for character in text {
            let width = character.utf16.count
            if character.isLetter || character.isNumber {
                if current.isEmpty { start = offset }
                current.append(character)
            } else if !current.isEmpty {
                words.append(Word(folded: fold(current), start: start, end: offset))
                current = ""
            }
            offset += width
        }
        if !current.isEmpty { words.append(Word(folded: fold(current), start: start, end: offset)) }
        return words
    }

    static func fold(_ text: String) -> String {
        // Most words are ASCII: lowercasing is all their folding, and Foundation's folding costs
        // far more than the rest of ranking a message.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }
}

extension ChatStore {
    /// Most results a search returns.
    public static let maxSearchResults = 50
    /// Candidates ranked per search: the newest matches; older ones are not looked at.
    public static let searchCandidates = 500
    /// How long the index may be read for one search; the candidates found by then are ranked.
    static let searchTimeBudget: Duration = .milliseconds(150)

    /// The messages in `user`'s channels that match `query`, best first (``SearchRanking``).
    ///
    /// - Throws: `invalidArgument` for a query without a letter or digit.
    public func searchMessages(_ query: String, for user: UserID, limit: Int = 20) async throws -> [SearchHit] {
        let terms = SearchRanking.terms(of: query)
        guard !terms.isEmpty else {
            throw ChatStoreError.invalidArgument(field: "q", reason: "the search needs at least one word or number")
        }
        let limit = min(max(limit, 1), Self.maxSearchResults)
        let rows = try await read { db in
            // Ordered by the index's own rowid, so FTS5 walks its matches newest first and the
            // LIMIT (or the time budget) ends the walk; ordered by the message's position, every
            // match was collected and sorted first.
            let sqlite = db.dialect == .sqlite
            return try db.rows(
                sqlite
                    ? """
                    SELECT m.id, m.cid, m.user_id, m.text, m.created_at, m.parent_id, m.edited_at, m.deleted_at,
                        m.position, c.name
                    FROM message_search
                    JOIN messages m ON m.position = message_search.rowid
                    JOIN members mb ON mb.cid = m.cid AND mb.user_id = ?
                    JOIN channels c ON c.cid = m.cid
                    WHERE message_search MATCH ?
                    ORDER BY message_search.rowid DESC LIMIT ?
                    """ : PostgresSQL.messageSearch,
                [
                    .text(user.rawValue),
                    .text(sqlite ? SearchRanking.matchExpression(for: terms) : PostgresSQL.tsquery(for: terms)),
                    .int(Self.searchCandidates),
                ],
                within: Self.searchTimeBudget
            ) { row in (message: Self.messageRow(row), position: row.int64(8), channel: row.string(9)) }
        }
        let ranked = rows.map { row -> (hit: SearchHit, position: Int64) in
            let (score, highlights) = SearchRanking.score(row.message.text, terms: terms)
            return (
                SearchHit(message: row.message, channelName: row.channel, score: score, highlights: highlights),
                row.position
            )
        }
        .filter { $0.hit.score > 0 }
        .sorted { $0.hit.score != $1.hit.score ? $0.hit.score > $1.hit.score : $0.position > $1.position }
        return ranked.prefix(limit).map(\.hit)
    }

    /// The newest `limit` top-level messages after `after` (exclusive), oldest first, deleted
    /// ones left out (the model reads them); with `after` nil, the newest `limit`. For a member
    /// of the channel only.
    public func messages(in cid: ChannelID, for user: UserID, after: MessageID?, limit: Int) async throws -> [Message] {
        let limit = min(max(limit, 1), Self.maxPageSize)
        return try await read { db in
            try Self.requireMember(user, cid, db)
            var bound: Int64 = 0
            if let after {
                guard
                    let position = try db.row(
                        "SELECT position FROM messages WHERE id = ? AND cid = ?",
                        [.text(after.rawValue), .text(cid.cid)],
                        { $0.int64(0) })
                else { throw ChatStoreError.notFound(what: "message", id: after.rawValue) }
                bound = position
            }
            return try Self.forModel(
                db.rows(
                    """
                    SELECT \(Self.messageColumns) FROM messages
                    WHERE cid = ? AND position > ? AND parent_id IS NULL AND deleted_at IS NULL
                    ORDER BY position DESC LIMIT ?
                    """,
                    [.text(cid.cid), .integer(bound), .int(limit)], Self.messageRow
                ).reversed(), db)
        }
    }

    /// The message with this id, if `user` is a member of its channel.
    ///
    /// - Throws: `notFound` when there is no such message or it is in a channel `user` is not in
    ///   (the same answer, so ids in other channels cannot be probed).
    public func message(_ id: MessageID, for user: UserID) async throws -> Message {
        try await read { db in
            guard let message = try Self.message(id, db), try Self.isMember(user, message.cid, db) else {
                throw ChatStoreError.notFound(what: "message", id: id.rawValue)
            }
            return message
        }
    }
}
