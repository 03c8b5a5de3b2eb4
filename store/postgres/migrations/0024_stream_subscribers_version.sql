-- 0024_stream_subscribers_version.sql: each stream's active subscribers
-- get a version, which changes with every change of who they are.
--
-- A send reads its channel's active subscribers, ten thousand ids for a
-- big channel: about 3.5 ms of the server's time and 80 kB on the wire for
-- every send. With a version a Store can keep the list and have the server
-- send it only when the version differs from the one it holds. The
-- versions come from one sequence, so a version names one stream's list at
-- one point: two streams never share one, and a version taken by a
-- transaction that rolled back is never taken again.
CREATE SEQUENCE IF NOT EXISTS stream_subscribers_version_seq;

-- The default, volatile, gives every existing stream a version of its own.
ALTER TABLE streams ADD COLUMN IF NOT EXISTS subscribers_version bigint NOT NULL DEFAULT nextval('stream_subscribers_version_seq');

-- A statement that adds, removes or changes subscriptions gives each
-- stream whose list of active subscribers (with the first message each may
-- see) it changed a new version, once per statement. An update that
-- changes only a subscription's own settings (colour, muting,
-- notifications) changes no list.
CREATE OR REPLACE FUNCTION subscriptions_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE streams SET subscribers_version = nextval('stream_subscribers_version_seq')
        WHERE id IN (SELECT stream_id FROM new_rows WHERE active);
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE streams SET subscribers_version = nextval('stream_subscribers_version_seq')
        WHERE id IN (SELECT stream_id FROM old_rows WHERE active);
    ELSE
        UPDATE streams SET subscribers_version = nextval('stream_subscribers_version_seq')
        WHERE id IN (
            SELECT stream_id FROM (
                (SELECT stream_id, user_id, active, first_visible_message_id FROM new_rows
                 EXCEPT SELECT stream_id, user_id, active, first_visible_message_id FROM old_rows)
                UNION ALL
                (SELECT stream_id, user_id, active, first_visible_message_id FROM old_rows
                 EXCEPT SELECT stream_id, user_id, active, first_visible_message_id FROM new_rows)
            ) changed);
    END IF;
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS subscriptions_insert_version ON subscriptions;
CREATE TRIGGER subscriptions_insert_version AFTER INSERT ON subscriptions
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION subscriptions_bump_version();
DROP TRIGGER IF EXISTS subscriptions_update_version ON subscriptions;
CREATE TRIGGER subscriptions_update_version AFTER UPDATE ON subscriptions
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION subscriptions_bump_version();
DROP TRIGGER IF EXISTS subscriptions_delete_version ON subscriptions;
CREATE TRIGGER subscriptions_delete_version AFTER DELETE ON subscriptions
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION subscriptions_bump_version();
