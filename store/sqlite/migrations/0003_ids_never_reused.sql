-- 0003_ids_never_reused.sql: linkifiers, drafts and submessages never reuse an
-- id either. Without AUTOINCREMENT SQLite gives a new row the largest id in
-- the table plus one, so deleting the newest row handed its id to the next
-- one, even in another realm, and a stale request naming the old id reached
-- the new row. The other tables with ids never delete a row.
--
-- Each table is rebuilt with AUTOINCREMENT, keeping every row and its id;
-- sqlite_sequence starts at the largest id kept. Ids freed before this
-- migration above that largest id cannot be known and may be used once more.
-- Nothing references these tables, so the rebuild touches no other table.

CREATE TABLE linkifiers_new (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id     INTEGER NOT NULL,
    pattern      TEXT    NOT NULL,
    url_template TEXT    NOT NULL,
    ord          INTEGER NOT NULL,
    UNIQUE (realm_id, pattern)
) STRICT;
INSERT INTO linkifiers_new (id, realm_id, pattern, url_template, ord)
    SELECT id, realm_id, pattern, url_template, ord FROM linkifiers;
DROP TABLE linkifiers;
ALTER TABLE linkifiers_new RENAME TO linkifiers;
CREATE INDEX linkifiers_realm_order ON linkifiers (realm_id, ord, id);

CREATE TABLE drafts_new (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id   INTEGER NOT NULL,
    type      TEXT    NOT NULL,
    stream_id INTEGER,
    topic     TEXT    NOT NULL,
    to_users  TEXT,
    content   TEXT    NOT NULL,
    last_edit INTEGER
) STRICT;
INSERT INTO drafts_new (id, user_id, type, stream_id, topic, to_users, content, last_edit)
    SELECT id, user_id, type, stream_id, topic, to_users, content, last_edit FROM drafts;
DROP TABLE drafts;
ALTER TABLE drafts_new RENAME TO drafts;
CREATE INDEX drafts_user ON drafts (user_id, id);

CREATE TABLE submessages_new (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    sender_id  INTEGER NOT NULL,
    msg_type   TEXT    NOT NULL,
    content    TEXT    NOT NULL
) STRICT;
INSERT INTO submessages_new (id, message_id, sender_id, msg_type, content)
    SELECT id, message_id, sender_id, msg_type, content FROM submessages;
DROP TABLE submessages;
ALTER TABLE submessages_new RENAME TO submessages;
CREATE INDEX submessages_message ON submessages (message_id, id);
