-- 0009_message_policy.sql: a realm's message editing, moving and deletion
-- settings (chatcore.MessagePolicy). Every column's zero or empty value is
-- Zulip's default; time limits are seconds, negative for no limit.

ALTER TABLE realms ADD COLUMN content_editing_disabled INTEGER NOT NULL DEFAULT 0 CHECK (content_editing_disabled IN (0, 1));
ALTER TABLE realms ADD COLUMN edit_history_disabled INTEGER NOT NULL DEFAULT 0 CHECK (edit_history_disabled IN (0, 1));
ALTER TABLE realms ADD COLUMN content_edit_limit INTEGER NOT NULL DEFAULT 0;
ALTER TABLE realms ADD COLUMN move_within_channel_limit INTEGER NOT NULL DEFAULT 0;
ALTER TABLE realms ADD COLUMN move_between_channels_limit INTEGER NOT NULL DEFAULT 0;
ALTER TABLE realms ADD COLUMN delete_own_limit INTEGER NOT NULL DEFAULT 0;
ALTER TABLE realms ADD COLUMN move_between_topics_group TEXT NOT NULL DEFAULT '';
ALTER TABLE realms ADD COLUMN move_between_channels_group TEXT NOT NULL DEFAULT '';
ALTER TABLE realms ADD COLUMN resolve_topics_group TEXT NOT NULL DEFAULT '';
ALTER TABLE realms ADD COLUMN delete_any_group TEXT NOT NULL DEFAULT '';
ALTER TABLE realms ADD COLUMN delete_own_group TEXT NOT NULL DEFAULT '';
