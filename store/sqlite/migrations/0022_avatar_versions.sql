-- 0022_avatar_versions.sql: users' avatar_version, Zulip's count of avatar
-- changes (from 1); a profile already deleted (avatar_source 'D') had one
-- change.
ALTER TABLE users ADD COLUMN avatar_version INTEGER NOT NULL DEFAULT 1;
UPDATE users SET avatar_version = 2 WHERE avatar_source = 'D';
