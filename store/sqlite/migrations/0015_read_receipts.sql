-- 0015_read_receipts.sql: a realm's enable_read_receipts, stored inverted so
-- that the zero value (0) is Zulip's default for a new organization (on).

ALTER TABLE realms ADD COLUMN read_receipts_disabled INTEGER NOT NULL DEFAULT 0 CHECK (read_receipts_disabled IN (0, 1));
