-- 0018_realm_admin.sql: the realm administration settings. A realm's
-- description, language and deactivation; the users' can_create_users
-- permission (POST /users); and the settings new accounts of a realm start
-- with (PATCH /realm/user_settings_defaults), one JSON object per realm.
ALTER TABLE realms ADD COLUMN IF NOT EXISTS description text NOT NULL DEFAULT '';
ALTER TABLE realms ADD COLUMN IF NOT EXISTS default_language text NOT NULL DEFAULT '';
ALTER TABLE realms ADD COLUMN IF NOT EXISTS deactivated boolean NOT NULL DEFAULT false;
ALTER TABLE users ADD COLUMN IF NOT EXISTS can_create_users boolean NOT NULL DEFAULT false;
CREATE TABLE IF NOT EXISTS realm_user_defaults (
    realm_id bigint PRIMARY KEY,
    settings text   NOT NULL
);
