-- The mail outbox: one row per mail, written in the transaction of what causes it (so it is as
-- durable as that change), then sent by the mail sender. A row stays `pending` until an
-- attempt's outcome is written: a server that dies mid-attempt sends it again after restart
-- (at least once), and the mail keeps its `message_id`, so a receiver can tell the copies.
--
-- `headers` is a JSON object of extra header lines (name to value), checked when queued.
-- `claimed_by` and `claimed_until`: on PostgreSQL, the instance that claimed the row for an
-- attempt and until when the claim holds (then another instance may send it).
CREATE TABLE mail_outbox (
  id INTEGER PRIMARY KEY,
  to_address TEXT NOT NULL,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  text_body TEXT NOT NULL,
  html_body TEXT NOT NULL,
  headers TEXT NOT NULL DEFAULT '{}',
  message_id TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  sent_at TEXT,
  claimed_by INTEGER,
  claimed_until TEXT
) STRICT;
-- The sender's question: the oldest due pending mail.
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at, id) WHERE status = 'pending';
-- The admin's list, newest first, and the last failure.
CREATE INDEX mail_outbox_failed ON mail_outbox (id) WHERE status = 'failed';
