-- The delivery step scans undelivered rows that are due and have not failed;
-- failed rows stay undelivered forever (so users can retrieve them), and the
-- scan must not wade through them on every tick.
DROP INDEX scheduled_due;
CREATE INDEX scheduled_due ON scheduled_messages (delivered, failed, deliver_at, id);
