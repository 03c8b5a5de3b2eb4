-- 0008_reactions_presence.sql: one reaction per user, emoji type and code on a
-- message; presence rows and each realm's presence sequence.
--
-- A user's presence row says when a client of theirs last reported in and
-- when it last reported them active (NULL: never); last_update_id is the
-- number the realm's presence sequence gave the row's last change, so
-- clients can ask for the rows changed since the number they last saw.

CREATE UNIQUE INDEX reactions_user_emoji ON reactions (message_id, user_id, reaction_type, emoji_code);

CREATE TABLE presence (
    user_id        INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    realm_id       INTEGER NOT NULL,
    last_active    INTEGER,
    last_connected INTEGER NOT NULL,
    last_update_id INTEGER NOT NULL
) STRICT;
CREATE INDEX presence_realm_update ON presence (realm_id, last_update_id);

CREATE TABLE presence_sequences (
    realm_id       INTEGER PRIMARY KEY,
    last_update_id INTEGER NOT NULL
) STRICT;
