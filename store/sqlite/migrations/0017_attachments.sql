-- 0017_attachments.sql: uploaded files' metadata (Zulip's Attachment) and
-- the messages that reference them. path_id is the file's key in the file
-- storage (on SQLite a directory beside the database). A message's
-- references are rows of attachment_messages, read through the messages (a
-- deleted message's rows count for nothing). Ids are never reused.
CREATE TABLE attachments (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id     INTEGER NOT NULL,
    owner_id     INTEGER NOT NULL,
    path_id      TEXT    NOT NULL UNIQUE,
    file_name    TEXT    NOT NULL,
    content_type TEXT    NOT NULL,
    size         INTEGER NOT NULL,
    created      INTEGER NOT NULL
) STRICT;
CREATE INDEX attachments_owner ON attachments (owner_id, id);
CREATE INDEX attachments_realm ON attachments (realm_id, id);
CREATE TABLE attachment_messages (
    attachment_id INTEGER NOT NULL REFERENCES attachments (id) ON DELETE CASCADE,
    message_id    INTEGER NOT NULL,
    PRIMARY KEY (attachment_id, message_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX attachment_messages_message ON attachment_messages (message_id);

-- Custom emoji (Zulip's RealmEmoji); a deactivated emoji keeps its row, and
-- only active names are unique within a realm.
CREATE TABLE realm_emoji (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id     INTEGER NOT NULL,
    name         TEXT    NOT NULL,
    author_id    INTEGER NOT NULL,
    file_name    TEXT    NOT NULL,
    content_type TEXT    NOT NULL,
    deactivated  INTEGER NOT NULL CHECK (deactivated IN (0, 1)),
    created      INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX realm_emoji_active_name ON realm_emoji (realm_id, name) WHERE deactivated = 0;
