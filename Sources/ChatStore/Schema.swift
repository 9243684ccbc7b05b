/// The chat database's migrations, oldest first. Append new ones; never edit applied ones.
package enum Schema {
    package static var migrator: Migrator {
        var migrator = Migrator()
        migrator.registerMigration("v1: users, channels, members, messages, events") { db in
            try db.execute(
                """
                CREATE TABLE users(
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    last_seq INTEGER NOT NULL DEFAULT 0,        -- newest event sequence number
                    pruned_through INTEGER NOT NULL DEFAULT 0   -- durable events up to here are gone
                );
                CREATE TABLE channels(
                    cid TEXT PRIMARY KEY,
                    type TEXT NOT NULL,
                    name TEXT NOT NULL,
                    created_by TEXT NOT NULL REFERENCES users(id),
                    created_at INTEGER NOT NULL,
                    last_message_at INTEGER
                );
                CREATE TABLE members(
                    cid TEXT NOT NULL REFERENCES channels(cid),
                    user_id TEXT NOT NULL REFERENCES users(id),
                    joined_at INTEGER NOT NULL,
                    last_read_position INTEGER NOT NULL DEFAULT 0,
                    last_read_message_id TEXT,
                    last_read_at INTEGER,
                    PRIMARY KEY(cid, user_id)
                ) WITHOUT ROWID;
                CREATE INDEX members_by_user ON members(user_id, cid);
                CREATE TABLE messages(
                    position INTEGER PRIMARY KEY AUTOINCREMENT,  -- order within and across channels
                    id TEXT NOT NULL UNIQUE,
                    cid TEXT NOT NULL REFERENCES channels(cid),
                    user_id TEXT NOT NULL REFERENCES users(id),
                    text TEXT NOT NULL,
                    parent_id TEXT,
                    created_at INTEGER NOT NULL
                );
                CREATE INDEX messages_by_channel ON messages(cid, position);
                CREATE TABLE events(
                    id INTEGER PRIMARY KEY,
                    type TEXT NOT NULL,
                    cid TEXT,
                    payload TEXT NOT NULL,       -- JSON object without "seq"
                    ephemeral INTEGER NOT NULL,  -- typing, suggestions: not replayed once stale
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE user_events(
                    user_id TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    event_id INTEGER NOT NULL REFERENCES events(id),
                    PRIMARY KEY(user_id, seq)
                ) WITHOUT ROWID;
                CREATE INDEX user_events_by_event ON user_events(event_id);
                """)
        }
        migrator.registerMigration("v2: unique display names") { db in
            // Names taken twice before this rule keep the oldest holder's; the others get their id.
            try db.execute(
                """
                UPDATE users SET name = name || ' (' || id || ')'
                WHERE rowid NOT IN (SELECT MIN(rowid) FROM users GROUP BY name COLLATE NOCASE);
                CREATE UNIQUE INDEX users_by_name ON users(name COLLATE NOCASE);
                """)
        }
        migrator.registerMigration("v3: message search, preferences") { db in
            // An external-content FTS5 index over messages.text, kept in step by triggers; the
            // ranking is the app's (ChatStore+Search), the index only finds candidates.
            try db.execute(
                """
                CREATE VIRTUAL TABLE message_search USING fts5(
                    text, content='messages', content_rowid='position', tokenize='unicode61 remove_diacritics 2'
                );
                INSERT INTO message_search(message_search) VALUES('rebuild');
                CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN
                    INSERT INTO message_search(rowid, text) VALUES (new.position, new.text);
                END;
                CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
                    INSERT INTO message_search(message_search, rowid, text) VALUES ('delete', old.position, old.text);
                END;
                CREATE TRIGGER messages_search_update AFTER UPDATE OF text ON messages BEGIN
                    INSERT INTO message_search(message_search, rowid, text) VALUES ('delete', old.position, old.text);
                    INSERT INTO message_search(rowid, text) VALUES (new.position, new.text);
                END;
                CREATE TABLE preferences(
                    user_id TEXT NOT NULL REFERENCES users(id),
                    name TEXT NOT NULL,
                    value TEXT NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY(user_id, name)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v4: assistant conversations") { db in
            // A user's private conversations with the model. Messages keep their order by
            // `position`; `role` is user, assistant or divider (a session reset, its text the
            // reason or the summary the new session starts from). Images belong to a user message.
            try db.execute(
                """
                CREATE TABLE assistant_conversations(
                    id TEXT PRIMARY KEY,
                    owner TEXT NOT NULL REFERENCES users(id),
                    title TEXT NOT NULL,
                    persona TEXT NOT NULL,
                    instructions TEXT NOT NULL,
                    temperature REAL NOT NULL,
                    language TEXT,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    opened_at INTEGER NOT NULL
                );
                CREATE INDEX assistant_conversations_by_owner ON assistant_conversations(owner, updated_at);
                CREATE TABLE assistant_messages(
                    position INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    conversation_id TEXT NOT NULL REFERENCES assistant_conversations(id) ON DELETE CASCADE,
                    role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'divider')),
                    text TEXT NOT NULL,
                    input_tokens INTEGER,
                    output_tokens INTEGER,
                    model TEXT,
                    stopped INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL
                );
                CREATE INDEX assistant_messages_by_conversation ON assistant_messages(conversation_id, position);
                CREATE TABLE assistant_images(
                    id TEXT PRIMARY KEY,
                    message_id TEXT NOT NULL REFERENCES assistant_messages(id) ON DELETE CASCADE,
                    mime_type TEXT NOT NULL,
                    bytes BLOB NOT NULL,
                    created_at INTEGER NOT NULL
                );
                CREATE INDEX assistant_images_by_message ON assistant_images(message_id);
                CREATE VIRTUAL TABLE assistant_message_search USING fts5(
                    text, content='assistant_messages', content_rowid='position',
                    tokenize='unicode61 remove_diacritics 2'
                );
                CREATE TRIGGER assistant_messages_search_insert AFTER INSERT ON assistant_messages
                WHEN new.role != 'divider' BEGIN
                    INSERT INTO assistant_message_search(rowid, text) VALUES (new.position, new.text);
                END;
                CREATE TRIGGER assistant_messages_search_delete AFTER DELETE ON assistant_messages
                WHEN old.role != 'divider' BEGIN
                    INSERT INTO assistant_message_search(assistant_message_search, rowid, text)
                    VALUES ('delete', old.position, old.text);
                END;
                """)
        }
        migrator.registerMigration("v5: assistant uploads") { db in
            // Images attached to a conversation and not sent yet; sending a message moves them
            // to `assistant_images`, under that message.
            try db.execute(
                """
                CREATE TABLE assistant_uploads(
                    id TEXT PRIMARY KEY,
                    conversation_id TEXT NOT NULL REFERENCES assistant_conversations(id) ON DELETE CASCADE,
                    mime_type TEXT NOT NULL,
                    bytes BLOB NOT NULL,
                    created_at INTEGER NOT NULL
                );
                CREATE INDEX assistant_uploads_by_conversation ON assistant_uploads(conversation_id);
                """)
        }
        migrator.registerMigration("v6: one event log, read by channel") { db in
            // Before, every event was copied into each recipient's log (`user_events`, keyed by
            // user and a per-user seq): a message to 20 members dirtied about 40 B-tree pages
            // at random, and the writer could not keep up at 1,000 messages a second. Now an
            // event is one row with one seq for all its recipients: a channel's members read
            // it through `event_log_by_channel`, a user's own events through `event_log_by_user`.
            // A user's seqs increase but have gaps (other channels' events).
            //
            // Clients keep the old per-user seqs; none exceeds the old highest event id, so the
            // new log starts after it and calls everything up to it pruned: a client resumes
            // from there or gets a resync, never a wrong replay.
            try db.execute(
                """
                CREATE TABLE event_log(
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    type TEXT NOT NULL,
                    cid TEXT,
                    user_id TEXT,      -- set: this user's alone; null: every member of cid
                    except_user TEXT,  -- a channel event this member is not sent (typing: the typist)
                    payload TEXT NOT NULL,       -- JSON object without "seq"
                    ephemeral INTEGER NOT NULL,  -- typing, suggestions: not replayed once stale
                    created_at INTEGER NOT NULL
                );
                CREATE INDEX event_log_by_channel ON event_log(cid, seq) WHERE user_id IS NULL;
                CREATE INDEX event_log_by_user ON event_log(user_id, seq) WHERE user_id IS NOT NULL;
                CREATE INDEX event_log_by_time ON event_log(created_at);
                CREATE TABLE event_log_state(
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    pruned_through INTEGER NOT NULL  -- durable events up to here are gone
                );
                INSERT INTO event_log_state(id, pruned_through) VALUES (1, (SELECT COALESCE(MAX(id), 0) FROM events));
                INSERT INTO sqlite_sequence(name, seq) VALUES ('event_log', (SELECT COALESCE(MAX(id), 0) FROM events));
                DROP TABLE user_events;
                DROP TABLE events;
                ALTER TABLE users DROP COLUMN last_seq;
                ALTER TABLE users DROP COLUMN pruned_through;
                """)
        }
        migrator.registerMigration("v7: messages indexed for search at the end of their transaction") { db in
            // The insert trigger indexed each message at its savepoint, and FTS5 writes a
            // segment at every savepoint: a group commit of twenty messages wrote twenty. Now the
            // writer indexes the messages past `indexed_through` once, before each commit
            // (`SearchIndexing`); every message so far was indexed by the trigger.
            try db.execute(
                """
                DROP TRIGGER messages_search_insert;
                CREATE TABLE message_search_state(
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    indexed_through INTEGER NOT NULL  -- messages.position; those after it are not indexed yet
                );
                INSERT INTO message_search_state(id, indexed_through)
                    VALUES (1, (SELECT COALESCE(MAX(position), 0) FROM messages));
                """)
        }
        migrator.registerMigration(
            "v8: token generations, disabled users, name skeletons, no credentials in model names"
        ) { db in
            // `sotto token revoke` raises a user's generation (their older tokens stop working)
            // and `sotto user disable` sets `disabled_at`; `access_state.version` changes with
            // either, so a running server sees a change with one small read.
            try db.execute(
                """
                ALTER TABLE users ADD COLUMN token_generation INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE users ADD COLUMN disabled_at INTEGER;
                ALTER TABLE users ADD COLUMN name_skeleton TEXT;
                CREATE INDEX users_by_name_skeleton ON users(name_skeleton);
                CREATE TABLE access_state(id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
                INSERT INTO access_state(id, version) VALUES (1, 0);
                CREATE INDEX channels_by_creator ON channels(created_by);
                -- The bytes each user's assistant conversations hold, kept by the writes that
                -- change them, for the quota (StorageQuota).
                CREATE TABLE assistant_usage(owner TEXT PRIMARY KEY, bytes INTEGER NOT NULL) WITHOUT ROWID;
                INSERT INTO assistant_usage(owner, bytes)
                SELECT c.owner,
                    COALESCE((SELECT SUM(length(CAST(m.text AS BLOB))) FROM assistant_messages m
                        JOIN assistant_conversations d ON d.id = m.conversation_id WHERE d.owner = c.owner), 0)
                  + COALESCE((SELECT SUM(length(i.bytes)) FROM assistant_images i
                        JOIN assistant_messages m ON m.id = i.message_id
                        JOIN assistant_conversations d ON d.id = m.conversation_id WHERE d.owner = c.owner), 0)
                  + COALESCE((SELECT SUM(length(u.bytes)) FROM assistant_uploads u
                        JOIN assistant_conversations d ON d.id = u.conversation_id WHERE d.owner = c.owner), 0)
                FROM (SELECT DISTINCT owner FROM assistant_conversations) c;
                """)
            // Names that look alike are one user's at most: each name's skeleton, for the check.
            let users = try db.rows("SELECT id, name FROM users", []) { ($0.string(0), $0.string(1)) }
            for (id, name) in users {
                try db.run(
                    "UPDATE users SET name_skeleton = ? WHERE id = ?",
                    [.text(DisplayNameRules.skeleton(of: name)), .text(id)])
            }
            // Answers of a fallback configured as http://user:password@host kept its password in
            // their model name.
            let named = try db.rows(
                "SELECT id, model FROM assistant_messages WHERE model LIKE '%://%@%'", []
            ) { ($0.string(0), $0.string(1)) }
            for (id, model) in named {
                try db.run(
                    "UPDATE assistant_messages SET model = ? WHERE id = ?",
                    [.text(CredentialRedaction.redacted(model)), .text(id)])
            }
        }
        migrator.registerMigration("v9: images made by an image model") { db in
            // An image generated on request (`sotto serve --image-url`) names the model that made
            // it, which the web app shows beside it; the user's own files have none.
            try db.execute(
                """
                ALTER TABLE assistant_uploads ADD COLUMN generated_by TEXT;
                ALTER TABLE assistant_images ADD COLUMN generated_by TEXT;
                """)
        }
        migrator.registerMigration("v10: passwords and one-time links") { db in
            // Sign-in with a password (argon2id strings: the parameters and salt inside) and the
            // setup, invite and reset links that set one. A link is kept as the SHA-256 of its
            // secret, never the secret itself; it is used once, before it expires.
            try db.execute(
                """
                ALTER TABLE users ADD COLUMN password_hash TEXT;
                ALTER TABLE users ADD COLUMN is_admin INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE account_links(
                    secret_hash TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('setup', 'invite', 'reset')),
                    created_by TEXT,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    used_at INTEGER
                ) WITHOUT ROWID;
                CREATE INDEX account_links_by_user ON account_links(user_id);
                """)
        }
        migrator.registerMigration("v11: edits, deletions, reactions") { db in
            // An edit keeps the text it replaced in `message_edits` (for the author and
            // administrators); a deletion empties the text, drops that history and leaves the
            // row as a tombstone, so replies and read positions still point somewhere.
            try db.execute(
                """
                ALTER TABLE messages ADD COLUMN edited_at INTEGER;
                ALTER TABLE messages ADD COLUMN deleted_at INTEGER;
                CREATE TABLE message_edits(
                    position INTEGER PRIMARY KEY AUTOINCREMENT,
                    message_id TEXT NOT NULL,
                    text TEXT NOT NULL,      -- the text before this edit
                    edited_at INTEGER NOT NULL
                );
                CREATE INDEX message_edits_by_message ON message_edits(message_id, position);
                CREATE TABLE message_reactions(
                    message_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    emoji TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY(message_id, emoji, user_id)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v12: public channels and topics") { db in
            // A public channel is listed to everyone, who may join it; a private one (every
            // channel so far) is for its members alone, as before.
            try db.execute(
                """
                ALTER TABLE channels ADD COLUMN is_public INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE channels ADD COLUMN topic TEXT NOT NULL DEFAULT '';
                CREATE INDEX channels_public ON channels(is_public, name) WHERE is_public = 1;
                """)
        }
        migrator.registerMigration("v13: threads") { db in
            // Replies are found by their root; `thread_reads` is how far each follower of a
            // thread (its starter, who replied, who was mentioned in it, who opened it) has read.
            // Existing threads start read by those who already took part in them.
            try db.execute(
                """
                CREATE INDEX messages_by_parent ON messages(parent_id, position) WHERE parent_id IS NOT NULL;
                CREATE TABLE thread_reads(
                    parent_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    cid TEXT NOT NULL,
                    last_read_position INTEGER NOT NULL,
                    PRIMARY KEY(parent_id, user_id)
                ) WITHOUT ROWID;
                CREATE INDEX thread_reads_by_user ON thread_reads(user_id, cid);
                INSERT OR IGNORE INTO thread_reads(parent_id, user_id, cid, last_read_position)
                    SELECT r.parent_id, r.user_id, r.cid,
                        (SELECT MAX(position) FROM messages WHERE parent_id = r.parent_id)
                    FROM messages r WHERE r.parent_id IS NOT NULL GROUP BY r.parent_id, r.user_id;
                INSERT OR IGNORE INTO thread_reads(parent_id, user_id, cid, last_read_position)
                    SELECT p.id, p.user_id, p.cid, (SELECT MAX(position) FROM messages WHERE parent_id = p.id)
                    FROM messages p WHERE EXISTS (SELECT 1 FROM messages r WHERE r.parent_id = p.id);
                """)
        }
        migrator.registerMigration("v14: attachments") { db in
            // A file a member uploads to a channel: kept here until a message of theirs claims
            // it (message_id), then shown with that message; deleting the message deletes it.
            // `model_text` is what the model reads of an image (its OCR text and kind).
            try db.execute(
                """
                CREATE TABLE attachments(
                    id TEXT PRIMARY KEY,
                    cid TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    message_id TEXT,
                    name TEXT NOT NULL,
                    mime_type TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    bytes BLOB NOT NULL,
                    width INTEGER,
                    height INTEGER,
                    thumbnail BLOB,
                    thumbnail_type TEXT,
                    model_text TEXT,
                    created_at INTEGER NOT NULL
                );
                CREATE INDEX attachments_by_message ON attachments(message_id) WHERE message_id IS NOT NULL;
                CREATE INDEX attachments_waiting ON attachments(user_id, cid) WHERE message_id IS NULL;
                """)
        }
        return migrator
    }
}
