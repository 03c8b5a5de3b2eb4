-- 0019_user_groups_admin.sql: Zulip's system groups, deactivation and
-- creation of user groups, and group-based permission settings.
--
-- A system group (is_system = 1) has no member rows: its members are the
-- users of its realm whose role number is at most system_role (0 for
-- role:nobody). Every realm gets its eight system groups here; the
-- NOT EXISTS keeps a realm that already has one from getting it twice.

ALTER TABLE user_groups ADD COLUMN is_system INTEGER NOT NULL DEFAULT 0 CHECK (is_system IN (0, 1));
ALTER TABLE user_groups ADD COLUMN system_role INTEGER NOT NULL DEFAULT 0;
ALTER TABLE user_groups ADD COLUMN deactivated INTEGER NOT NULL DEFAULT 0 CHECK (deactivated IN (0, 1));
ALTER TABLE user_groups ADD COLUMN creator_id INTEGER;
ALTER TABLE user_groups ADD COLUMN date_created INTEGER;

-- group_settings holds the group-based permission settings that differ from
-- their defaults: kind is 'realm', 'stream' or 'group', object_id the
-- realm, channel or group id, value the JSON of store.GroupSettingValue.
CREATE TABLE IF NOT EXISTS group_settings (
    realm_id  INTEGER NOT NULL,
    kind      TEXT    NOT NULL,
    object_id INTEGER NOT NULL,
    name      TEXT    NOT NULL,
    value     TEXT    NOT NULL,
    PRIMARY KEY (kind, object_id, name)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS group_settings_realm ON group_settings (realm_id);

-- default_streams are the realm's default channels.
CREATE TABLE IF NOT EXISTS default_streams (
    realm_id  INTEGER NOT NULL,
    stream_id INTEGER NOT NULL,
    PRIMARY KEY (realm_id, stream_id)
) STRICT, WITHOUT ROWID;

INSERT INTO user_groups (realm_id, name, description, is_system, system_role)
SELECT r.id, s.name, s.description, 1, s.role
FROM realms r CROSS JOIN (
    SELECT 1 AS ord, 'role:owners' AS name, 'Owners of this organization' AS description, 100 AS role
    UNION ALL SELECT 2, 'role:administrators', 'Administrators of this organization, including owners', 200
    UNION ALL SELECT 3, 'role:moderators', 'Moderators of this organization, including administrators', 300
    UNION ALL SELECT 4, 'role:fullmembers', 'Members of this organization, not including new accounts and guests', 400
    UNION ALL SELECT 5, 'role:members', 'Members of this organization, not including guests', 400
    UNION ALL SELECT 6, 'role:everyone', 'Everyone in this organization, including guests', 600
    UNION ALL SELECT 7, 'role:internet', 'Everyone on the Internet', 600
    UNION ALL SELECT 8, 'role:nobody', 'Nobody', 0
) s
WHERE NOT EXISTS (SELECT 1 FROM user_groups g WHERE g.realm_id = r.id AND g.name = s.name)
ORDER BY r.id, s.ord;
