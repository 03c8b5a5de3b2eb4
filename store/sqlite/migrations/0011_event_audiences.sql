-- 0011_event_audiences.sql: log entries are addressed through audiences.
--
-- An audience is a set of users, stored once however many entries address
-- it; an entry names its audience (0: none, a public copy alone). The
-- messages of a channel go to the same subscribers, so they share one, and
-- appending an entry writes no row per user: event_users wrote one per
-- addressee into two B-trees, most of the cost of logging a channel message,
-- and as many deletions when the entry was pruned. hash identifies the set
-- (see audienceHash); the entries migrated here keep an audience each, under
-- a hash no set can have. An audience is deleted when the last entry naming
-- it is pruned.

CREATE TABLE event_audiences (
    id   INTEGER PRIMARY KEY,
    hash BLOB NOT NULL UNIQUE
) STRICT;

CREATE TABLE event_audience_users (
    user_id     INTEGER NOT NULL,
    audience_id INTEGER NOT NULL,
    PRIMARY KEY (user_id, audience_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX event_audience_users_audience ON event_audience_users (audience_id);

ALTER TABLE event_log ADD COLUMN audience_id INTEGER NOT NULL DEFAULT 0;

INSERT INTO event_audiences (id, hash) SELECT DISTINCT event_id, CAST('entry ' || event_id AS BLOB) FROM event_users;
INSERT INTO event_audience_users (user_id, audience_id) SELECT user_id, event_id FROM event_users;
UPDATE event_log SET audience_id = id WHERE id IN (SELECT event_id FROM event_users);
DROP TABLE event_users;

CREATE INDEX event_log_audience ON event_log (audience_id, id);
