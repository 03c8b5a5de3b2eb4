-- 0012_indexed_reads.sql: every read of "the messages a user received"
-- goes through an index.
--
-- The messages a user received are read per channel or conversation they
-- are in (a range of messages_recipient from their subscription's
-- since_message_id), merged by id, together with their flag rows; these
-- indexes serve the conditions narrows add to such a range.
--
-- has holds what a message's content has (1 link, 2 image, 4 attachment),
-- set at send and edit. Existing rows are filled from their content here
-- with GLOB patterns for the rules of the Go code: a link is an http:// or
-- https:// URL or an upload path, an attachment an upload path (both exact);
-- an image is an upload path followed by an extension like an image's (SQLite
-- has no regular expressions: this one is approximate for rows written
-- before this version).
ALTER TABLE messages ADD COLUMN has INTEGER NOT NULL DEFAULT 0;
UPDATE messages SET has =
    (CASE WHEN content GLOB '*http://*' OR content GLOB '*https://*' OR content GLOB '*/user_uploads*' THEN 1 ELSE 0 END)
  | (CASE WHEN lower(content) GLOB '*[/-]user[-_]uploads[/.-]*.[bgjpw][imnpe][fpgb]*' THEN 2 ELSE 0 END)
  | (CASE WHEN content GLOB '*[/-]user[-_]uploads[/.-]*' THEN 4 ELSE 0 END);

-- A sender narrow reads each of the user's ranges by sender.
CREATE INDEX messages_recipient_sender ON messages (recipient_id, sender_id, id);
-- A flag narrow finds the messages whose default flags (an @**all**
-- mention) could match without walking the others.
CREATE INDEX messages_recipient_defaults ON messages (recipient_id, id) WHERE default_flags <> 0;

-- A has: narrow reads only the messages that have something.
CREATE INDEX messages_recipient_has ON messages (recipient_id, id) WHERE has <> 0;

-- A user's rows by flag: unread rows (below a read mark, or out of every
-- range), starred rows, and rows with a mention flag (8, 16 and 32).
CREATE INDEX user_message_flags_unread ON user_message_flags (user_id, message_id) WHERE flags & 1 = 0;
CREATE INDEX user_message_flags_starred ON user_message_flags (user_id, message_id) WHERE flags & 2 = 2;
CREATE INDEX user_message_flags_mentioned ON user_message_flags (user_id, message_id) WHERE flags & 56 <> 0;

-- read_marks: the user has read every message of the channel or direct
-- conversation up to through, except where a flag row says otherwise.
-- Messages above it without a row have the message's default flags; a
-- user who reads in order moves the mark, so their unread messages are the
-- range above it and their unread rows, found through indexes however long
-- the history.
CREATE TABLE read_marks (
    user_id      INTEGER NOT NULL,
    recipient_id INTEGER NOT NULL,
    through      INTEGER NOT NULL,
    PRIMARY KEY (user_id, recipient_id)
) STRICT, WITHOUT ROWID;
-- The receivers a read mark covers, by message (MessageFlagRows).
CREATE INDEX read_marks_recipient ON read_marks (recipient_id, through);
