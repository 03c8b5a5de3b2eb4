-- 0006_event_queues.sql: the event log and the event queues reading it.
--
-- event_log holds every event an operation committed, appended in the
-- operation's own transaction; event_users addresses each entry to its
-- users. group_start is the id of the first entry of the entry's group, 0
-- for the first entry itself and for entries without a group: a public entry
-- reaches a user only when no entry of its group (from group_start, or
-- itself, up to it) is addressed to that user. event_log_state keeps
-- the highest id ever pruned. event_queues are cursors over the log.

CREATE TABLE event_log (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id    INTEGER NOT NULL,
    public      INTEGER NOT NULL DEFAULT 0,
    group_start INTEGER NOT NULL,
    data        BLOB NOT NULL
) STRICT;
CREATE INDEX event_log_public ON event_log (realm_id, id) WHERE public = 1;

CREATE TABLE event_users (
    user_id  INTEGER NOT NULL,
    event_id INTEGER NOT NULL REFERENCES event_log (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, event_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX event_users_event ON event_users (event_id);

CREATE TABLE event_log_state (
    id             INTEGER PRIMARY KEY CHECK (id = 1),
    pruned_through INTEGER NOT NULL
) STRICT;
INSERT INTO event_log_state (id, pruned_through) VALUES (1, 0);

CREATE TABLE event_queues (
    id            TEXT PRIMARY KEY,
    realm_id      INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    params        BLOB NOT NULL,
    public        INTEGER NOT NULL,
    lifespan_secs INTEGER NOT NULL,
    position      INTEGER NOT NULL,
    acked         INTEGER NOT NULL,
    created       INTEGER NOT NULL,
    last_poll     INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX event_queues_user ON event_queues (user_id);
CREATE INDEX event_queues_position ON event_queues (position);
CREATE INDEX event_queues_expiry ON event_queues (last_poll + lifespan_secs);
