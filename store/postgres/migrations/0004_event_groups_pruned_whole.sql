-- 0004_event_groups_pruned_whole.sql: an index of the log entries that
-- continue a group (every entry of a message but its first).
--
-- PruneEvents keeps the entries of a group that has entries after its batch
-- (a queue positioned inside a group has had its user's entry, and the
-- group's public entry, later, must still see it). Ids of one group need not
-- be consecutive (appends to other realms take ids meanwhile), so the groups
-- that continue past a batch are found through this index, by their start.

CREATE INDEX event_log_group_continuations ON event_log (group_start) WHERE group_start < id;
