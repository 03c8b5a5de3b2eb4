-- 0019_attachment_images.sql: what messages' inline image previews need of
-- an image upload (Zulip's ImageAttachment): its size as its header gave it
-- (zero for uploads without a preview, and once its thumbnail failed) and
-- the name of the thumbnail format made of it (empty until made). Every
-- statement may run again.
ALTER TABLE attachments ADD COLUMN IF NOT EXISTS image_width integer NOT NULL DEFAULT 0;
ALTER TABLE attachments ADD COLUMN IF NOT EXISTS image_height integer NOT NULL DEFAULT 0;
ALTER TABLE attachments ADD COLUMN IF NOT EXISTS thumbnail text NOT NULL DEFAULT '';
