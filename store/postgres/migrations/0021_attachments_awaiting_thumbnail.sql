-- 0021_attachments_awaiting_thumbnail.sql: the image uploads whose thumbnail
-- is neither made nor found impossible, so that a thumbnailer starting
-- again finds the jobs lost with the last one by id, in batches, without
-- reading every upload. The statement may run again.
CREATE INDEX IF NOT EXISTS attachments_awaiting_thumbnail ON attachments (id) WHERE image_width > 0 AND thumbnail = '';
