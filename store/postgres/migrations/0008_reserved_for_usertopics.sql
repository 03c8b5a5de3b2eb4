-- Empty on branch h/receipts only: it stands in for the usertopics branch's
-- migration of this number so that this branch's migrations stay contiguous.
-- Drop this file when merging (the usertopics migration takes the number).
SELECT 1;
