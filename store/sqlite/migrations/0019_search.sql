-- Full-text search (the search narrow operator): an FTS5 table holding,
-- for each message (rowid = message id), the lexemes of its topic and of
-- the text of its rendered content, as chatcore_search_document (a
-- function the store registers, package internal/fulltext) computes them:
-- stemmed, lower-cased words without stop words. The table stores no
-- content (content=''), only the index; contentless_delete lets a row be
-- deleted by rowid. Triggers keep it in step with messages in the writing
-- statement's own transaction: every insert (send, bulk import), every
-- change of topic or rendered content (edit, move to another topic) and
-- every deletion (of messages, topics, realms).
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
	body, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0');

CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages BEGIN
	INSERT INTO messages_fts (rowid, body) VALUES (new.id, chatcore_search_document(new.topic, new.rendered_content));
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_update AFTER UPDATE OF topic, rendered_content ON messages
	WHEN old.topic IS NOT new.topic OR old.rendered_content IS NOT new.rendered_content BEGIN
	DELETE FROM messages_fts WHERE rowid = old.id;
	INSERT INTO messages_fts (rowid, body) VALUES (new.id, chatcore_search_document(new.topic, new.rendered_content));
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages BEGIN
	DELETE FROM messages_fts WHERE rowid = old.id;
END;

-- The messages written before: one pass in id order; FTS5 flushes its
-- pending terms to disk as they pass its bound, so memory stays bounded.
DELETE FROM messages_fts;
INSERT INTO messages_fts (rowid, body)
	SELECT id, chatcore_search_document(topic, rendered_content) FROM messages ORDER BY id;
