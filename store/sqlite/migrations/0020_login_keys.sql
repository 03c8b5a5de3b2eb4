-- 0020_login_keys.sql: the API keys password logins issue (POST
-- /fetch_api_key), one per login besides the user's own key, by hash; id
-- orders them by when they were added.
CREATE TABLE IF NOT EXISTS login_keys (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    hash    TEXT    NOT NULL UNIQUE,
    user_id INTEGER NOT NULL,
    created INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS login_keys_user ON login_keys (user_id, id);
