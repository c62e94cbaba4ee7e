-- A queued mail's contents (its text and HTML parts and extra headers) move out of the outbox row
-- into a table of their own. SQLite writes a whole row again at every change of it: the claim and
-- the outcome of each attempt rewrote about 10 KB of contents to change a few small columns (the
-- write-ahead log grew by 100 MB over 10,000 mails, and its checkpoints paused the server). The
-- contents are needed until the mail's last attempt: they are deleted when it is sent or has
-- failed for good, so the outbox keeps its log of what went where, not every mail's text.
CREATE TABLE mail_bodies (
  mail_id INTEGER PRIMARY KEY REFERENCES mail_outbox (id) ON DELETE CASCADE,
  text_body TEXT NOT NULL,
  html_body TEXT NOT NULL,
  headers TEXT NOT NULL DEFAULT '{}'
) STRICT;
INSERT INTO mail_bodies (mail_id, text_body, html_body, headers)
  SELECT id, text_body, html_body, headers FROM mail_outbox WHERE status = 'pending';
ALTER TABLE mail_outbox DROP COLUMN text_body;
ALTER TABLE mail_outbox DROP COLUMN html_body;
ALTER TABLE mail_outbox DROP COLUMN headers;
