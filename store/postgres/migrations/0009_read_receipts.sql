-- 0009_read_receipts.sql: a realm's enable_read_receipts, stored inverted so
-- that the zero value (false) is Zulip's default for a new organization (on).

ALTER TABLE realms ADD COLUMN IF NOT EXISTS read_receipts_disabled boolean NOT NULL DEFAULT false;
