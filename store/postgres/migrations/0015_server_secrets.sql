-- 0015_server_secrets.sql: the server's own secrets by name (the key that
-- signs temporary upload URLs), shared by every instance on the database.
CREATE TABLE IF NOT EXISTS server_secrets (
    name  text  NOT NULL PRIMARY KEY,
    value bytea NOT NULL
);
