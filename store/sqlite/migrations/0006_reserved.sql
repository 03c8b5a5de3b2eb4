-- 0006_reserved.sql: a placeholder for the migration of work done in
-- parallel (its number is taken there); it changes nothing and gives way to
-- the real 0006 when the branches meet.
SELECT 1;
