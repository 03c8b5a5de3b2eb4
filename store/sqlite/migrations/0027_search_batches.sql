-- The full-text index (messages_fts, migration 0019) is filled after commit,
-- in batches, rather than by triggers inside every writing transaction: FTS5
-- writes a segment and its bookkeeping per transaction, which made each send
-- and edit about twice as costly. search_state holds indexed_through: every
-- message with an id up to it has its current document in messages_fts
-- unless its id is in search_stale (written again since it was indexed:
-- edited, moved, or inserted below indexed_through with an explicit id).
-- Messages above indexed_through and those in search_stale are the index's
-- tail, which the store's indexer (package sqlite, search.go) indexes in
-- batches and searches match in Go meanwhile. messages_fts holds no row
-- above indexed_through.
DROP TRIGGER IF EXISTS messages_fts_insert;
DROP TRIGGER IF EXISTS messages_fts_update;
DROP TRIGGER IF EXISTS messages_fts_delete;

CREATE TABLE IF NOT EXISTS search_state (
	one INTEGER PRIMARY KEY CHECK (one = 1),
	indexed_through INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS search_stale (message_id INTEGER PRIMARY KEY);

-- The index was complete under the triggers: it reaches the newest message.
INSERT OR REPLACE INTO search_state (one, indexed_through) VALUES (1, (SELECT coalesce(max(id), 0) FROM messages));

-- A message inserted at or below indexed_through (only an explicit id can
-- be) is stale too: the store marks it (markExplicitIDs), with no trigger
-- on every insert.

-- A change of what the index holds of an indexed message makes it stale.
CREATE TRIGGER IF NOT EXISTS messages_search_update AFTER UPDATE OF topic, rendered_content ON messages
	WHEN (old.topic IS NOT new.topic OR old.rendered_content IS NOT new.rendered_content)
		AND old.id <= (SELECT indexed_through FROM search_state) BEGIN
	INSERT OR IGNORE INTO search_stale (message_id) VALUES (old.id);
END;

-- A deleted indexed message leaves the index in the deleting transaction
-- (deletions are rare next to sends and edits), and its stale mark goes.
CREATE TRIGGER IF NOT EXISTS messages_search_delete AFTER DELETE ON messages
	WHEN old.id <= (SELECT indexed_through FROM search_state) BEGIN
	DELETE FROM messages_fts WHERE rowid = old.id;
	DELETE FROM search_stale WHERE message_id = old.id;
END;
