-- 0025_personal_default_flags.sql: the messages whose default flags hold a
-- bit other than the mention bits (8, 16, 32), by recipient.
--
-- A read of a user's messages with a flag no mention gives (starred, say)
-- looks in each channel for messages whose default flags hold it. Through
-- messages_recipient_defaults it tested every message with a default flag,
-- every @**all** of the channel's history; the rules default only mention
-- bits, so this index is all but empty and such a range reads nothing.
CREATE INDEX IF NOT EXISTS messages_recipient_personal_defaults ON messages (recipient_id, id) WHERE (default_flags | 56) <> 56;
