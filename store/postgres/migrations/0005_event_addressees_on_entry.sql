-- 0005_event_addressees_on_entry.sql: a log entry keeps its addressees.
--
-- event_users is read by user (its primary key, user_id then event_id);
-- the index by event_id served only pruning and the Bus's catch-up, which
-- find an entry's addressees. Every append paid for it with one more index
-- insertion per addressee, the largest part of an append after the rows
-- themselves. The entry now carries its addressees' ids (sorted, the same
-- set as its event_users rows), so pruning deletes those rows through the
-- primary key and the catch-up reads them from the entry.
ALTER TABLE event_log ADD COLUMN users bigint[] NOT NULL DEFAULT '{}';

UPDATE event_log e SET users = a.users
FROM (SELECT event_id, array_agg(user_id ORDER BY user_id) AS users FROM event_users GROUP BY event_id) a
WHERE a.event_id = e.id;

DROP INDEX event_users_event;
