-- 0006_indexed_reads.sql: every read of "the messages a user received"
-- goes through an index.
--
-- The messages a user received are read per channel or conversation they
-- are in (a range of messages_recipient from their subscription's
-- since_message_id), merged by id, together with their flag rows; these
-- indexes serve the conditions narrows add to such a range.
--
-- has holds what a message's content has (1 link, 2 image, 4 attachment),
-- set at send and edit; existing rows are filled from their content here
-- with the patterns of the Go code. Every statement may run again (a
-- schema set back to an older version keeps what it does not know).
ALTER TABLE messages ADD COLUMN IF NOT EXISTS has smallint NOT NULL DEFAULT 0;
UPDATE messages SET has =
    (CASE WHEN content LIKE '%http://%' OR content LIKE '%https://%' OR content LIKE '%/user\_uploads%' THEN 1 ELSE 0 END)
  | (CASE WHEN content ~* '[/\-]user[\-_]uploads[/\.-]\S+\.(bmp|gif|jpg|jpeg|png|webp)' THEN 2 ELSE 0 END)
  | (CASE WHEN content ~ '[/\-]user[\-_]uploads[/\.-]' THEN 4 ELSE 0 END)
WHERE content ~ '(https?://|user[\-_]uploads)';

-- A sender narrow reads each of the user's ranges by sender.
CREATE INDEX IF NOT EXISTS messages_recipient_sender ON messages (recipient_id, sender_id, id);
-- A flag narrow finds the messages whose default flags (an @**all**
-- mention) could match without walking the others.
CREATE INDEX IF NOT EXISTS messages_recipient_defaults ON messages (recipient_id, id) WHERE default_flags <> 0;

-- A has: narrow reads only the messages that have something.
CREATE INDEX IF NOT EXISTS messages_recipient_has ON messages (recipient_id, id) WHERE has <> 0;

-- A user's rows by flag: unread rows (below a read mark, or out of every
-- range), starred rows, and rows with a mention flag (8, 16 and 32).
CREATE INDEX IF NOT EXISTS user_message_flags_unread ON user_message_flags (user_id, message_id) WHERE flags & 1 = 0;
CREATE INDEX IF NOT EXISTS user_message_flags_starred ON user_message_flags (user_id, message_id) WHERE flags & 2 = 2;
CREATE INDEX IF NOT EXISTS user_message_flags_mentioned ON user_message_flags (user_id, message_id) WHERE flags & 56 <> 0;

-- read_marks: the user has read every message of the channel or direct
-- conversation up to through, except where a flag row says otherwise.
-- Messages above it without a row have the message's default flags; a
-- user who reads in order moves the mark, so their unread messages are the
-- range above it and their unread rows, found through indexes however long
-- the history.
CREATE TABLE IF NOT EXISTS read_marks (
    user_id      bigint NOT NULL,
    recipient_id bigint NOT NULL,
    through      bigint NOT NULL,
    PRIMARY KEY (user_id, recipient_id)
);
-- The receivers a read mark covers, by message (MessageFlagRows).
CREATE INDEX IF NOT EXISTS read_marks_recipient ON read_marks (recipient_id, through);
