-- 0018_invites.sql: invitations to join a realm, single-use (one e-mail
-- address) and multi-use links. Ids are never reused; the link key is
-- unique across realms. stream_ids is a JSON array of channel ids.
CREATE TABLE IF NOT EXISTS invites (
    id                      INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id                INTEGER NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    key                     TEXT    NOT NULL UNIQUE,
    multi_use               INTEGER NOT NULL CHECK (multi_use IN (0, 1)),
    email                   TEXT    NOT NULL,
    email_key               TEXT    NOT NULL,
    inviter_id              INTEGER,
    invite_as               INTEGER NOT NULL,
    stream_ids              TEXT    NOT NULL,
    include_default_streams INTEGER NOT NULL CHECK (include_default_streams IN (0, 1)),
    notify_referrer         INTEGER NOT NULL CHECK (notify_referrer IN (0, 1)),
    created_at              INTEGER NOT NULL,
    expires_at              INTEGER,
    status                  INTEGER NOT NULL,
    used_by_id              INTEGER
) STRICT;
CREATE INDEX IF NOT EXISTS invites_realm_created ON invites (realm_id, created_at);
CREATE INDEX IF NOT EXISTS invites_realm_email ON invites (realm_id, email_key);
