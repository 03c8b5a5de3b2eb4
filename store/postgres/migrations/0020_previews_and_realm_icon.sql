-- 0020_previews_and_realm_icon.sql: what messages' inline image previews need of
-- an image upload (Zulip's ImageAttachment): its size as its header gave it
-- (zero for uploads without a preview, and once its thumbnail failed) and
-- the name of the thumbnail format made of it (empty until made). Every
-- statement may run again.
ALTER TABLE attachments ADD COLUMN IF NOT EXISTS image_width integer NOT NULL DEFAULT 0;
ALTER TABLE attachments ADD COLUMN IF NOT EXISTS image_height integer NOT NULL DEFAULT 0;
ALTER TABLE attachments ADD COLUMN IF NOT EXISTS thumbnail text NOT NULL DEFAULT '';

-- The organization's icon (Zulip's icon_source and icon_version): "U" once
-- an administrator uploaded one, else ('' or "G") the default; the version
-- counts its changes.
ALTER TABLE realms ADD COLUMN IF NOT EXISTS icon_source text NOT NULL DEFAULT '';
ALTER TABLE realms ADD COLUMN IF NOT EXISTS icon_version integer NOT NULL DEFAULT 0;
