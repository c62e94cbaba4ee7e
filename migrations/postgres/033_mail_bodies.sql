-- PostgreSQL: the change of ../033_mail_bodies.sql for this engine (same version, same table and
-- columns; SQLite INTEGER is bigint here, TEXT text).
--
-- A queued mail's contents (its text and HTML parts and extra headers) move out of the outbox row
-- into a table of their own, so that the claim and the outcome of each attempt change a small row.
-- The contents are needed until the mail's last attempt: they are deleted when it is sent or has
-- failed for good, so the outbox keeps its log of what went where, not every mail's text.
CREATE TABLE mail_bodies (
  mail_id bigint PRIMARY KEY REFERENCES mail_outbox (id) ON DELETE CASCADE,
  text_body text NOT NULL,
  html_body text NOT NULL,
  headers text NOT NULL DEFAULT '{}'
);
INSERT INTO mail_bodies (mail_id, text_body, html_body, headers)
  SELECT id, text_body, html_body, headers FROM mail_outbox WHERE status = 'pending';
ALTER TABLE mail_outbox DROP COLUMN text_body, DROP COLUMN html_body, DROP COLUMN headers;
