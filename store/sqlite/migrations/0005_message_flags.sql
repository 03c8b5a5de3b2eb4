-- 0005_message_flags.sql: per-user message flags.
--
-- Whether a user received a message is derived (a participant of a direct
-- message; an active subscription whose since_message_id is not above the
-- message id), so a send writes no row per subscriber. user_message_flags
-- holds a user's complete flags on a message only where they differ from the
-- message's default_flags (the flags every receiver has): the sender's read,
-- mentions, and every change a user makes. A row also makes the message
-- received (historical messages). Rows go with their message.

ALTER TABLE subscriptions ADD COLUMN since_message_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN default_flags INTEGER NOT NULL DEFAULT 0;

CREATE TABLE user_message_flags (
    user_id    INTEGER NOT NULL,
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    flags      INTEGER NOT NULL,
    PRIMARY KEY (user_id, message_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX user_message_flags_message ON user_message_flags (message_id);
