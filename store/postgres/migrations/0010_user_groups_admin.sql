-- 0013_user_groups_admin.sql: Zulip's system groups, deactivation and
-- creation of user groups, and group-based permission settings.
--
-- A system group (is_system) has no member rows: its members are the users
-- of its realm whose role number is at most system_role (0 for
-- role:nobody). Every realm gets its eight system groups here; the NOT
-- EXISTS keeps a realm that already has one from getting it twice.

ALTER TABLE user_groups ADD COLUMN IF NOT EXISTS is_system boolean NOT NULL DEFAULT false;
ALTER TABLE user_groups ADD COLUMN IF NOT EXISTS system_role integer NOT NULL DEFAULT 0;
ALTER TABLE user_groups ADD COLUMN IF NOT EXISTS deactivated boolean NOT NULL DEFAULT false;
ALTER TABLE user_groups ADD COLUMN IF NOT EXISTS creator_id bigint;
ALTER TABLE user_groups ADD COLUMN IF NOT EXISTS date_created timestamptz;

-- group_settings holds the group-based permission settings that differ from
-- their defaults: kind is 'realm', 'stream' or 'group', object_id the
-- realm, channel or group id, value the JSON of store.GroupSettingValue.
CREATE TABLE IF NOT EXISTS group_settings (
    realm_id  bigint NOT NULL,
    kind      text   NOT NULL,
    object_id bigint NOT NULL,
    name      text   NOT NULL,
    value     text   NOT NULL,
    PRIMARY KEY (kind, object_id, name)
);
CREATE INDEX IF NOT EXISTS group_settings_realm ON group_settings (realm_id);

-- default_streams are the realm's default channels.
CREATE TABLE IF NOT EXISTS default_streams (
    realm_id  bigint NOT NULL,
    stream_id bigint NOT NULL,
    PRIMARY KEY (realm_id, stream_id)
);

INSERT INTO user_groups (realm_id, name, description, is_system, system_role)
SELECT r.id, s.name, s.description, true, s.role
FROM realms r CROSS JOIN (VALUES
    (1, 'role:owners', 'Owners of this organization', 100),
    (2, 'role:administrators', 'Administrators of this organization, including owners', 200),
    (3, 'role:moderators', 'Moderators of this organization, including administrators', 300),
    (4, 'role:fullmembers', 'Members of this organization, not including new accounts and guests', 400),
    (5, 'role:members', 'Members of this organization, not including guests', 400),
    (6, 'role:everyone', 'Everyone in this organization, including guests', 600),
    (7, 'role:internet', 'Everyone on the Internet', 600),
    (8, 'role:nobody', 'Nobody', 0)
) AS s (ord, name, description, role)
WHERE NOT EXISTS (SELECT 1 FROM user_groups g WHERE g.realm_id = r.id AND g.name = s.name)
ORDER BY r.id, s.ord;
