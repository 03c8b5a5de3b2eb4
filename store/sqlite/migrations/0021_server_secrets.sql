-- 0021_server_secrets.sql: the server's own secrets by name (the key that
-- signs temporary upload URLs), shared by every process on the database.
CREATE TABLE IF NOT EXISTS server_secrets (
    name  TEXT NOT NULL PRIMARY KEY,
    value BLOB NOT NULL
) STRICT;
