-- 0004_linkifier_versions.sql: a per-realm version of the linkifier list.
--
-- LinkifiersVersion lets a caller learn whether a realm's linkifiers changed
-- with one read instead of reading every row. The triggers bump the version
-- in the statement that changes a row, hence in its transaction, for every
-- write to the table, whatever issued it. A realm without a row here has
-- version 0; versions only grow, and rows are never deleted, so a version is
-- never given to two different linkifier lists of one realm.
--
-- A later migration that rebuilds the linkifiers table drops these triggers
-- with it and must create them again.

CREATE TABLE linkifier_versions (
    realm_id INTEGER PRIMARY KEY,
    version  INTEGER NOT NULL
) STRICT;

CREATE TRIGGER linkifiers_version_insert AFTER INSERT ON linkifiers
BEGIN
    INSERT INTO linkifier_versions (realm_id, version) VALUES (NEW.realm_id, 1)
        ON CONFLICT (realm_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER linkifiers_version_update AFTER UPDATE ON linkifiers
BEGIN
    INSERT INTO linkifier_versions (realm_id, version) VALUES (OLD.realm_id, 1)
        ON CONFLICT (realm_id) DO UPDATE SET version = version + 1;
    INSERT INTO linkifier_versions (realm_id, version)
        SELECT NEW.realm_id, 1 WHERE NEW.realm_id <> OLD.realm_id
        ON CONFLICT (realm_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER linkifiers_version_delete AFTER DELETE ON linkifiers
BEGIN
    INSERT INTO linkifier_versions (realm_id, version) VALUES (OLD.realm_id, 1)
        ON CONFLICT (realm_id) DO UPDATE SET version = version + 1;
END;
