-- 0010_event_users_unchecked.sql: event_users loses its foreign key to
-- event_log.
--
-- The key made SQLite look the entry up for every row addressing it (some
-- twenty per channel message) and, through ON DELETE CASCADE, run a
-- sub-program for every pruned entry: together a third of the cost of
-- logging a message. The store only ever adds an entry's rows with the entry,
-- in the same transaction, and PruneEvents deletes them itself, through
-- event_users_event, before the entries; entry ids are never reused
-- (AUTOINCREMENT), so no row could address a later entry anyway.

CREATE TABLE event_users_new (
    user_id  INTEGER NOT NULL,
    event_id INTEGER NOT NULL,
    PRIMARY KEY (user_id, event_id)
) STRICT, WITHOUT ROWID;
INSERT INTO event_users_new (user_id, event_id) SELECT user_id, event_id FROM event_users;
DROP TABLE event_users;
ALTER TABLE event_users_new RENAME TO event_users;
CREATE INDEX event_users_event ON event_users (event_id);
