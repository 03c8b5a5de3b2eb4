-- Appends of different realms no longer wait for each other: each append
-- locks only its realms, so ids follow commit order within a realm, not
-- across realms. What a queue needs to know about pruning is therefore kept
-- per realm: event_log_pruned holds, for each realm, the highest id of its
-- entries that a prune deleted. Every existing realm starts at the old
-- global mark, which was reached while appends followed commit order across
-- all realms.
CREATE TABLE event_log_pruned (
    realm_id       bigint PRIMARY KEY,
    pruned_through bigint NOT NULL
);
INSERT INTO event_log_pruned (realm_id, pruned_through)
SELECT r.id, s.pruned_through FROM realms r CROSS JOIN event_log_state s;
DROP TABLE event_log_state;

-- A realm's head (LastEventID) is the highest id of its entries.
CREATE INDEX event_log_realm ON event_log (realm_id, id);

-- event_users loses its foreign key: checking it reads event_log's primary
-- key index, which under SERIALIZABLE makes every two concurrent appends
-- conflict (they insert into the same last page of that index). Pruning
-- deletes an entry's addressees with it instead (PruneEvents), and nothing
-- else deletes entries.
ALTER TABLE event_users DROP CONSTRAINT event_users_event_id_fkey;
