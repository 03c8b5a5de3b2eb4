-- 0026_previews_and_realm_icon.sql: what messages' inline image previews need of
-- an image upload (Zulip's ImageAttachment): its size as its header gave it
-- (zero for uploads without a preview, and once its thumbnail failed) and
-- the name of the thumbnail format made of it (empty until made).
ALTER TABLE attachments ADD COLUMN image_width INTEGER NOT NULL DEFAULT 0;
ALTER TABLE attachments ADD COLUMN image_height INTEGER NOT NULL DEFAULT 0;
ALTER TABLE attachments ADD COLUMN thumbnail TEXT NOT NULL DEFAULT '';

-- The organization's icon (Zulip's icon_source and icon_version): "U" once
-- an administrator uploaded one, else ('' or "G") the default; the version
-- counts its changes.
ALTER TABLE realms ADD COLUMN icon_source TEXT NOT NULL DEFAULT '';
ALTER TABLE realms ADD COLUMN icon_version INTEGER NOT NULL DEFAULT 0;
