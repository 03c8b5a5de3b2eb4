-- 0014_user_topics_mutes_status_alert_words.sql: a user's own settings for
-- topics (Zulip's UserTopic), the users they muted, their status and their
-- alert words.
--
-- A user topic row holds a visibility policy other than inherit (1 muted,
-- 2 unmuted, 3 followed) for the topic of a channel, found by its TopicKey;
-- topic is the name as the user set it. Rows are read per user (the
-- /register sections, the muting conditions of a narrow, one per message
-- through the primary key) and per topic (moves, sends).
CREATE TABLE user_topics (
    user_id           INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    stream_id         INTEGER NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
    topic_key         TEXT    NOT NULL,
    topic             TEXT    NOT NULL,
    visibility_policy INTEGER NOT NULL CHECK (visibility_policy IN (1, 2, 3)),
    last_updated      INTEGER NOT NULL,
    PRIMARY KEY (user_id, stream_id, topic_key)
) STRICT;
CREATE INDEX user_topics_topic ON user_topics (stream_id, topic_key, user_id);

-- A user's muted users; a send reads who muted its sender.
CREATE TABLE muted_users (
    user_id       INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    muted_user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    date_muted    INTEGER NOT NULL,
    PRIMARY KEY (user_id, muted_user_id)
) STRICT;
CREATE INDEX muted_users_muted ON muted_users (muted_user_id, user_id);

-- One status per user; /register reads a realm's.
CREATE TABLE user_statuses (
    user_id       INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    realm_id      INTEGER NOT NULL,
    status_text   TEXT    NOT NULL,
    emoji_name    TEXT    NOT NULL,
    emoji_code    TEXT    NOT NULL,
    reaction_type TEXT    NOT NULL,
    updated       INTEGER NOT NULL
) STRICT;
CREATE INDEX user_statuses_realm ON user_statuses (realm_id, user_id);

-- Alert words, unique per user case-insensitively (word_key is the word
-- lower-cased); a send reads its realm's.
CREATE TABLE alert_words (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id  INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    realm_id INTEGER NOT NULL,
    word     TEXT    NOT NULL,
    word_key TEXT    NOT NULL,
    UNIQUE (user_id, word_key)
) STRICT;
CREATE INDEX alert_words_realm ON alert_words (realm_id, user_id);
