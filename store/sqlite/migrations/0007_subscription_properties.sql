-- 0007_subscription_properties.sql: a user's personal settings for a
-- channel, and who created a channel with its rendered description.
--
-- The notification columns are NULL when the user's own setting applies.
-- color is '' until one is chosen (fixture rows).

ALTER TABLE subscriptions ADD COLUMN color TEXT NOT NULL DEFAULT '';
ALTER TABLE subscriptions ADD COLUMN pin_to_top INTEGER NOT NULL DEFAULT 0 CHECK (pin_to_top IN (0, 1));
ALTER TABLE subscriptions ADD COLUMN is_muted INTEGER NOT NULL DEFAULT 0 CHECK (is_muted IN (0, 1));
ALTER TABLE subscriptions ADD COLUMN desktop_notifications INTEGER CHECK (desktop_notifications IN (0, 1));
ALTER TABLE subscriptions ADD COLUMN audible_notifications INTEGER CHECK (audible_notifications IN (0, 1));
ALTER TABLE subscriptions ADD COLUMN push_notifications INTEGER CHECK (push_notifications IN (0, 1));
ALTER TABLE subscriptions ADD COLUMN email_notifications INTEGER CHECK (email_notifications IN (0, 1));
ALTER TABLE subscriptions ADD COLUMN wildcard_mentions_notify INTEGER CHECK (wildcard_mentions_notify IN (0, 1));

ALTER TABLE streams ADD COLUMN creator_id INTEGER;
ALTER TABLE streams ADD COLUMN rendered_description TEXT NOT NULL DEFAULT '';
