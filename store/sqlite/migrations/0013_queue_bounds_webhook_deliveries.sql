-- 0013_queue_bounds_webhook_deliveries.sql: indexes for the bounds on event
-- queues, and the outgoing-webhook deliveries that survive a crash.
--
-- A registration counts its user's and its realm's queues and finds the
-- user's queue idle the longest.
CREATE INDEX event_queues_realm ON event_queues (realm_id);
CREATE INDEX event_queues_user_poll ON event_queues (user_id, last_poll, id);
DROP INDEX event_queues_user;

-- A delivery is stored with the commit of the message that triggers it and
-- deleted once its outcome is posted; attempts counts the attempts started
-- (each claimed before it starts), attempted_at is when the last one
-- started (created at first). Ids are never reused.
CREATE TABLE webhook_deliveries (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id     INTEGER NOT NULL,
    message_id   INTEGER NOT NULL,
    bot_id       INTEGER NOT NULL,
    service_id   INTEGER NOT NULL,
    trigger_type TEXT    NOT NULL,
    attempts     INTEGER NOT NULL,
    created      INTEGER NOT NULL,
    attempted_at INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_deliveries_attempted ON webhook_deliveries (attempted_at, id);
