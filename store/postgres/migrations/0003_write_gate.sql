-- chatcore_write_gate holds no rows; transactions lock it (see Store.Update).
-- Every write transaction takes it in ROW SHARE mode, which writers never
-- wait for among themselves; a write that failed to serialise twice takes it
-- in EXCLUSIVE mode for its next attempt, so it runs while no other write
-- transaction does and cannot be starved by a stream of small ones.
CREATE TABLE chatcore_write_gate (id integer PRIMARY KEY);
