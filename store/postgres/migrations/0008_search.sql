-- Full-text search (the search narrow operator): a GIN index of the
-- english configuration's tsvector of each message's topic and rendered
-- content (the parser leaves HTML tags out: a link's address is not
-- searchable, its label is). Statements spell the expression exactly as
-- sqlstore.PostgresSearchDocument does. Building it sorts within
-- maintenance_work_mem, spilling to disk beyond: bounded memory.
CREATE INDEX IF NOT EXISTS messages_search ON messages
	USING gin (to_tsvector('english'::regconfig, topic || ' ' || rendered_content));
