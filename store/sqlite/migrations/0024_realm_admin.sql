-- 0024_realm_admin.sql: the realm administration settings. A realm's
-- description, language and deactivation; the users' can_create_users
-- permission (POST /users); and the settings new accounts of a realm start
-- with (PATCH /realm/user_settings_defaults), one JSON object per realm.
ALTER TABLE realms ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE realms ADD COLUMN default_language TEXT NOT NULL DEFAULT '';
ALTER TABLE realms ADD COLUMN deactivated INTEGER NOT NULL DEFAULT 0 CHECK (deactivated IN (0, 1));
ALTER TABLE users ADD COLUMN can_create_users INTEGER NOT NULL DEFAULT 0 CHECK (can_create_users IN (0, 1));
CREATE TABLE IF NOT EXISTS realm_user_defaults (
    realm_id INTEGER PRIMARY KEY,
    settings TEXT    NOT NULL
) STRICT;
