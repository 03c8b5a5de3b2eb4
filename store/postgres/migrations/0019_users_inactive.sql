-- 0019_users_inactive.sql: a realm's deactivated users, few, by their own
-- index: the subscriber lists of a full /register leave them out without
-- reading every user of the realm.
CREATE INDEX IF NOT EXISTS users_inactive ON users (realm_id, id) WHERE NOT is_active;
