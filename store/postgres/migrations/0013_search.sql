-- Full-text search (the search narrow operator): each message's tsvector
-- of the english configuration, of its topic and rendered content (the
-- parser leaves HTML tags out: a link's address is not searchable, its
-- label is), stored in a generated column that every write of topic or
-- content recomputes in its own statement, and a GIN index of it. Stored
-- rather than an expression index, so that a read walking a channel's
-- messages in id order tests each against the stored value instead of
-- parsing it again. Adding the column rewrites the table and building the
-- index sorts within maintenance_work_mem, spilling to disk beyond: both
-- in bounded memory.
ALTER TABLE messages ADD COLUMN IF NOT EXISTS search_tsv tsvector
	GENERATED ALWAYS AS (to_tsvector('english'::regconfig, topic || ' ' || rendered_content)) STORED;
CREATE INDEX IF NOT EXISTS messages_search ON messages USING gin (search_tsv);
